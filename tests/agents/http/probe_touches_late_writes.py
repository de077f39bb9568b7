"""Broken HTTP status service, as probe_touches_session (a status probe writes the session back:
a note joins its messages, its listing entry moves), on a queue: POST /chat/ answers at once and
its input (a message, an answer to a permission request) is applied 0.5 s later. A case that
reads the session right after its own write sees nothing change, and would conclude that the
messages and listing cannot show a write, so cannot show the probes' writes either: it must read
until its write shows, and then see the probes' notes.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _later import later
from fastapi.responses import JSONResponse
from probe_touches_session import Service as TouchesSession

from conformance.reference.http.service import main


class Service(TouchesSession):
    async def chat(self, user_id, request):
        self.owned(user_id, request.agent_id, request.session_id)  # a 404 for another's session
        later(self, 0.5, lambda: TouchesSession.chat(self, user_id, request))
        return JSONResponse({"status": "queued", "session_id": request.session_id})


if __name__ == "__main__":
    main(Service)

"""Conforming HTTP status service: every 404 says when it was served, to the second (as many web
frameworks' error bodies do). Two unknown ids asked back to back get the same second; another
user's probe a moment later may get the next one. Here the second ticks, deterministically,
right after every 404 for a session that exists, the moment a real clock may cross a second on a
loaded machine. Defeats the assumption that a field two unknown ids agree on is no per-request
noise (http.ownership.same-body, the ownership cases in every state): must pass.
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import JSONResponse


class Service(ReferenceService):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.clock = int(time.time())

    def not_found(self, session_id):
        served = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.clock))
        if session_id in self.sessions:  # someone else's session: the clock crosses a second now
            self.clock += 1
        return JSONResponse(
            {"detail": f"Session '{session_id}' not found.", "timestamp": served}, status_code=404
        )


if __name__ == "__main__":
    main(Service)

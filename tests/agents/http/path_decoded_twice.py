"""Broken HTTP status service: the status route percent-decodes the session id once more (the id
was already decoded from the URL), so `%2530…` in the URL, the id `%30…`, reads the session `0…`.
Caught by http.boundary.encodings (rule double-decoding).
"""

import pathlib
import sys
from urllib.parse import unquote

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        return await super().session_status(user_id, agent_id, unquote(session_id))


if __name__ == "__main__":
    main(Service)

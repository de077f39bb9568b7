"""Broken HTTP status service: when no session has the path's id, the status route answers for the
caller's session of that agent whose name (given at creation, "New session" by default) equals it,
for a dashboard's readable links (/sessions/nightly-build/status). An id that names no session is
answered 200 whenever it equals a session's name; every other route answers it 404. Caught by
http.unknown.not-found (the names the listing shows, asked as session ids).
The suite at 6be4cc8 certified it (exit 0): its unknown ids were never a value the service returned.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import Response


class Service(ReferenceService):
    async def session_status(self, user_id: str, agent_id: str, session_id: str) -> Response:
        session, _ = self.lookup(user_id, agent_id, session_id)
        if session is None:
            named = [
                s
                for s in self.sessions.values()
                if s.user_id == user_id and s.agent_id == agent_id and s.name == session_id
            ]
            if named:  # the most recently updated of that name
                named.sort(key=lambda s: s.updated_at, reverse=True)
                return self.status_body(named[0], session_id, self.derive_status(named[0]))
        return await super().session_status(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: DELETE /sessions/{id} stops the session's run, looked up by id
only, before it checks who asks: another user's DELETE gets the right 404 (as for a session that
does not exist) but the owner's run was interrupted on the way (running reads idle, its reply
finished as interrupted), and a session parked on a permission request is closed as interrupted
and reads idle. Breaks the route's "404 if the session does not exist or does not belong to the
authenticated user" (a refusal as nonexistent changes nothing) and RUNNING / AWAITING_PERMISSION
for the owner. Caught by http.failure.refused-requests (rules running and parked).
Certified before: the suite at 0fbef22 certified it (exit 0, blind bug hunt round 10); the
ownership cases checked another user's answers, never the owner's status after them.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def delete(self, user_id, agent_id, session_id):
        session = self.find(session_id)
        if session is not None:
            await self.interrupt(session)  # before the ownership check below
        await super().delete(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)

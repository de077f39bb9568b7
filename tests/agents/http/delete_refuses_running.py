"""Conforming HTTP status service: DELETE /sessions/{id} of a session whose run holds the lease is
refused with 409 Conflict (interrupt it first); an idle session is deleted. The status spec says
nothing of DELETE. Defeats the assumption that a documented DELETE takes any session
(http.later.deleted, whose running rule then has no deleted session to probe): must get not
testable, never a failure.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi import HTTPException


class Service(ReferenceService):
    async def delete(self, user_id, agent_id, session_id):
        session = self.owned(user_id, agent_id, session_id)
        if self.lease_held(session.id):
            raise HTTPException(409, "Session is running; interrupt it before deleting.")
        await super().delete(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: while a run holds the lease, status answers 200 running to any user and
agent_id (what AgentScope 2.0.11 does). Caught by http.ownership.while-running.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        if self.lease_held(session_id):  # the lease is asked before ownership
            return self.status_body(self.sessions.get(session_id), session_id, "running")
        return await super().session_status(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: the status asks the run lease before the session store (as
AgentScope does), and DELETE drops the session without stopping its run, so a session deleted while
it runs reads running until the run ends. Caught by http.later.deleted (rule running).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        if self.find(session_id) is None and self.lease_held(session_id):
            return self.status_body(None, session_id, "running")
        return await super().session_status(user_id, agent_id, session_id)

    async def delete(self, user_id, agent_id, session_id):
        self.sessions.pop(self.owned(user_id, agent_id, session_id).id, None)  # the run goes on


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: the agent check is skipped for an empty agent_id
(`if agent_id and session.agent_id != agent_id`), so `?agent_id=` reads the session. Caught by
http.types.odd-values (rule agent-id).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        session = self.find(session_id)
        if agent_id == "" and session is not None:
            agent_id = session.agent_id
        return await super().session_status(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: the status route compares agent_id case-insensitively (the other
routes compare exactly), so the upper-cased agent id reads the session's status while its messages
are 404. Caught by http.identity.agent-id-variants.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        session = self.find(session_id)
        if session is not None and session.agent_id.casefold() == agent_id.casefold():
            agent_id = session.agent_id
        return await super().session_status(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)

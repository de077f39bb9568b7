"""Broken HTTP status service: the agent_id the status checks ownership with is cut to the 32
characters of the agents' column before it is compared, so the session's agent_id with anything
appended is its agent. Caught by http.boundary.id-lengths (rule agent-id).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        return await super().session_status(user_id, agent_id[:32], session_id)


if __name__ == "__main__":
    main(Service)

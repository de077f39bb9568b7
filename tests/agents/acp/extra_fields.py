"""Conforming: other result shapes the schema allows: the status result and the -32002 error data
carry extra members and `_meta`, and the agent asks no permission for any prompt (the turn cases
are n/a).
"""

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        session_id = self.status_params(params)
        try:
            status = self.status_of(session_id)
        except RequestError:
            raise RequestError(
                -32002, "Resource not found", {"sessionId": session_id, "checked": "memory and disk"}
            ) from None
        return {"status": status, "lastActivity": "2026-12-01T00:00:00Z", "_meta": {"example.org/shard": 3}}

    async def work(self, session_id, text, cancelled):
        return True  # no permission asked, no slow turns


main(Agent)

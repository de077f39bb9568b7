"""Sequence-only: status with a `_meta` field attaches the caller (loads the session, replaying it)."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        result = await super().session_status(params)
        if isinstance(params.get("_meta"), dict) and result["status"] == "inactive":
            await self.load_session(cwd="/", session_id=params["sessionId"])
        return result


main(Agent)

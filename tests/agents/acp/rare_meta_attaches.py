"""Sequence-only, and rare: once a session has had two status calls with a `_meta` field, a
`_meta` status of it while it is inactive attaches the caller (loads the session), so a later
status says active for a session the client let go. The model-based sequences find it only now
and then (the campaign tests' rare bug: the ci run finds it at seeds 1 and 2 of 1 to 8)."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        result = await super().session_status(params)
        self.meta_calls = getattr(self, "meta_calls", {})
        if isinstance(params.get("_meta"), dict):
            sid = params["sessionId"]
            self.meta_calls[sid] = self.meta_calls.get(sid, 0) + 1
            if self.meta_calls[sid] >= 2 and result["status"] == "inactive":
                await self.load_session(cwd="/", session_id=sid)
        return result


main(Agent)

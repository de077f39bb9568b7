"""Broken (MUST): status loads an inactive session, as status_loads_inactive does, but replays its
history 150 ms after answering (the load runs in the background). A window that closes 50 ms
after the status calls misses the replay; the case waits until the agent is quiet."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        result = await super().session_status(params)
        sid = params.get("sessionId") if isinstance(params, dict) else None
        if result.get("status") == "inactive" and isinstance(sid, str) and sid not in self.loaded:
            _base.later(self, 0.15, lambda: self.load_session(cwd="/", session_id=sid))
        return result


main(Agent)

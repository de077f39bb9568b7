"""Broken (MUST): status answers `inactive` for a closed session, and loads it two seconds later in
the background (a warm-up for a session someone is looking at), replaying its history then. Every
window that closes once the agent is quiet after the status calls misses it; caught by
status.no-side-effects.twins-later, which leaves the twins alone for --hold seconds."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main

WARM_UP_AFTER = 2.0


class Agent(ReferenceAgent):
    async def session_status(self, params):
        result = await super().session_status(params)
        sid = params.get("sessionId") if isinstance(params, dict) else None
        if result.get("status") == "inactive" and isinstance(sid, str) and sid not in self.loaded:
            _base.later(self, WARM_UP_AFTER, lambda: self.load_session(cwd="/", session_id=sid))
        return result


main(Agent)

"""v2, MUST: a status call while the turn waits on session/request_permission drops that request:
the turn stops waiting for the answer and is abandoned, its snapshot reads `idle` (no stopReason),
and no `state_update` ever ends it.

The snapshot (status.state.own-last-update) then contradicts the session's own last update
(`requires_action`). The turn the agent abandoned is evidence the cases do not wait out
--turn-timeout for: its own status answer says the turn is over.
"""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def status(self, params):
        session_id = params.get("sessionId")
        if isinstance(session_id, str) and self.state.get(session_id, {}).get("state") == "requires_action":
            turn = self.turns.pop(session_id, None)
            if turn is not None:
                turn.cancel()  # the pending permission request with it
            self.state[session_id] = {"state": "idle"}
        return await super().status(params)


main_v2(None, None, Agent)

"""v2, MUST ("The agent MUST report `idle` when no foreground activity remains"): the cancel path
sends the turn's `idle` state_update (stopReason `cancelled`) straight to the client but never
records it, so the snapshot says `running` for good after a cancelled turn. A turn that ends on its
own records it as it should. Caught by status.state.idle-after-turn, rule after-cancel."""

from typing import Any

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def cancel(self, params):
        session_id: Any = params.get("sessionId")  # looked up as sent, as the reference does
        turn = self.turns.pop(session_id, None)
        if turn is not None:
            turn.cancel()
            await self.update(
                session_id, {"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"}
            )


main_v2(None, None, Agent)

"""v2, conforming: the idle state_update that ends a turn carries no stopReason (the v2 schema:
the agent SHOULD include one). The cases that compare a turn's stop reason with a control turn's
have nothing to compare: not testable, never failed."""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def finish(self, session_id, stop_reason):
        self.set_state(session_id, "idle")
        await self.update(session_id, {"sessionUpdate": "state_update", "state": "idle"})


main_v2(None, None, Agent)

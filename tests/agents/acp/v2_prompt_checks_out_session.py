"""v2, MUST: a turn checks its session out of the in-memory pool while it runs and puts it back
when it ends: status during the turn finds the session missing from memory and answers
`inactive` with no state, and the turn's own updates are the only sign it runs.

Caught by status.state.running-during-turn (and the cases that ask status during a turn). The turn
ends by itself with its `idle` state_update: evidence that ends any wait for a state during it.
"""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def turn(self, session, text):
        session_id = session["sessionId"]
        self.loaded.pop(session_id, None)
        snapshot = self.state.pop(session_id, {"state": "running"})
        try:
            await super().turn(session, text)
        finally:
            self.loaded[session_id] = session
            self.state[session_id] = self.state.get(session_id, snapshot)


main_v2(None, None, Agent)

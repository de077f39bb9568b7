"""v2, MUST: a turn checks its session out of the in-memory pool while it works and puts it back
when it ends: status during the turn finds the session missing from memory and answers `inactive`,
with no snapshot; the turn's own updates are the only sign it runs.

Caught by status.active.during-turn and status.state.running-during-turn. The turn ends by itself
with its `idle` state_update: a wait for it is not stretched to --turn-timeout by the status
answers.
"""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def turn(self, session, text):
        session_id = session["sessionId"]
        self.loaded.pop(session_id, None)  # checked out of the pool for the turn
        try:
            await super().turn(session, text)
        finally:
            self.loaded[session_id] = session

    def set_state(self, session_id, state, stop_reason=None):
        self.state[session_id] = {"state": state} | ({"stopReason": stop_reason} if stop_reason else {})


main_v2(None, None, Agent)

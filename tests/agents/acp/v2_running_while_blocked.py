"""v2, SHOULD: `running` while the turn waits on the user's permission and nothing else works.

The agent never reports `requires_action`: its turn asks the user's permission and does
nothing else until the answer, yet its state_updates and its status snapshot say `running`.
The snapshot agrees with the session's own updates (no MUST is broken), but the workflow as a
whole cannot progress without the user, which `requires_action` is for. Warned by
status.state.requires-action.
"""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    def set_state(self, session_id, state, stop_reason=None):
        super().set_state(session_id, "running" if state == "requires_action" else state, stop_reason)

    async def update(self, session_id, update):
        if update.get("state") == "requires_action":
            update = {**update, "state": "running"}
        await super().update(session_id, update)


main_v2(None, None, Agent)

"""v2, MUST: the snapshot is set `running` as soon as a session/prompt arrives, before the prompt
is checked and admitted ("so that a status right after the prompt sees it"). A prompt then
refused (an empty one, a spent allowance, one too long) starts no turn and sends no state_update,
and nothing sets the snapshot back: status reports `running` for an idle session for good.
Breaks the StateUpdate sentence "The agent MUST report `idle` when no foreground activity
remains." Accepted prompts hide it: each turn ends `idle` as it should.

Caught by status.state.idle-after-turn#refused-prompt (an empty prompt after the turn).
"""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def prompt(self, params):
        session_id = params.get("sessionId")
        if isinstance(session_id, str) and session_id in self.loaded:
            self.set_state(session_id, "running")  # before admission
        return await super().prompt(params)


main_v2(None, None, Agent)

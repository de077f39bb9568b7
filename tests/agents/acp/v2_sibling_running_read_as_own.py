"""v2, MUST: a session reads as busy while a sibling session's turn works.

The agent reports one foreground state for all its sessions: `requires_action` while any turn
waits on the user, `running` while any turn works, `idle` otherwise. An idle session whose
sibling runs reads as running (or waiting); one session at a time every answer is right.
Caught by status.state.own-last-update.
"""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def status(self, params):
        answer = await super().status(params)
        if "state" in answer:
            states = {s.get("state") for s in self.state.values()}
            for busy in ("requires_action", "running"):
                if busy in states:
                    answer["state"] = {"state": busy}
                    break
        return answer


main_v2(None, None, Agent)

"""v2, MUST: the snapshot is the last state_update the connection carried, whatever its session.

The agent keeps one foreground state per connection (the last `state_update` it sent) and
answers every status with it. One session at a time this is right; while another session's
turn waits on the user, an idle session reads `requires_action`. Caught by
status.state.own-last-update.
"""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def update(self, session_id, update):
        if update.get("sessionUpdate") == "state_update":
            self.last_sent = {k: v for k, v in update.items() if k != "sessionUpdate"}
        await super().update(session_id, update)

    async def status(self, params):
        answer = await super().status(params)
        if "state" in answer:
            answer["state"] = dict(getattr(self, "last_sent", answer["state"]))
        return answer


main_v2(None, None, Agent)

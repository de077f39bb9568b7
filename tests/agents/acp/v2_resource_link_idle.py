"""v2, MUST: a prompt that carries a `resource_link` block (a baseline content type every agent
takes) goes through a second path that never records the `running` snapshot, so while such a turn
works, status says `idle` though the turn's state_update said `running`. Breaks "The session's
current foreground state, as the same snapshot the Agent sends in `state_update` notifications".
Caught by status.state.running-during-turn (its prompt with a resource_link); the suite of 856482f
certified it, its prompts being text only (found by the sixth blind round)."""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.linked: set[str] = set()

    async def prompt(self, params):
        blocks = params.get("prompt") if isinstance(params, dict) else None
        linked = isinstance(blocks, list) and any(
            isinstance(b, dict) and b.get("type") == "resource_link" for b in blocks
        )
        if isinstance(sid := params.get("sessionId"), str):
            (self.linked.add if linked else self.linked.discard)(sid)
        return await super().prompt(params)

    async def status(self, params):
        answer = await super().status(params)
        if params.get("sessionId") in self.linked and answer.get("state", {}).get("state") == "running":
            answer["state"] = {"state": "idle"}
        return answer


main_v2(None, None, Agent)

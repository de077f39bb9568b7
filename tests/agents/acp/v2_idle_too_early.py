"""v2, MUST: the snapshot says `idle` while a turn is still running (it only tracks waits)."""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def status(self, params):
        answer = await super().status(params)
        if answer.get("state", {}).get("state") == "running":
            answer["state"] = {"state": "idle"}
        return answer


main_v2(None, None, Agent)

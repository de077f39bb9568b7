"""v2, SHOULD: an idle session is reported with an extension state `_resting` (allowed, unknown to clients)."""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def status(self, params):
        answer = await super().status(params)
        if answer.get("state", {}).get("state") == "idle":
            answer["state"] = {"state": "_resting"}
        return answer


main_v2(None, None, Agent)

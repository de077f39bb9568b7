"""v2, SHOULD: an idle session is reported with a made-up state `paused` (not `_`-prefixed)."""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def status(self, params):
        answer = await super().status(params)
        if answer.get("state", {}).get("state") == "idle":
            answer["state"] = {"state": "paused"}
        return answer


main_v2(None, None, Agent)

"""v2, MUST: once prompted, the snapshot says `running` forever, even after the turn's `idle`."""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def status(self, params):
        answer = await super().status(params)
        if answer.get("state", {}).get("stopReason"):
            answer["state"] = {"state": "running"}
        return answer


main_v2(None, None, Agent)

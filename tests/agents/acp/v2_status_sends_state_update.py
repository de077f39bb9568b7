"""v2, MUST: every status call also sends the snapshot as a state_update notification."""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def status(self, params):
        answer = await super().status(params)
        if "state" in answer:
            await self.update(params["sessionId"], {"sessionUpdate": "state_update", **answer["state"]})
        return answer


main_v2(None, None, Agent)

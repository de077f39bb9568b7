"""v2, SHOULD: status never reports the foreground state (clients must not read that as idle)."""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def status(self, params):
        answer = await super().status(params)
        answer.pop("state", None)
        return answer


main_v2(None, None, Agent)

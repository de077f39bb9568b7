"""v2, broken (MUST), with --memory-cap N: status counts as use (as status_refreshes_lru does in
v1), so under memory pressure the agent evicts a session nobody asked about first."""

import _base

from conformance.reference.acp.agent import main
from conformance.reference.acp.agent_v2 import ReferenceAgentV2


class Agent(ReferenceAgentV2):
    async def status(self, params):
        answer = await super().status(params)
        if params.get("sessionId") in self.loaded:
            self.memory.use(params["sessionId"])
        return answer


main(v2_class=Agent)

"""v2 without `capabilities.session.status` (and without the method): an agent that has not
implemented session/status. The run is "unimplemented" (exit 3), and every message names the v2
capability path, not v1's agentCapabilities.sessionCapabilities.status."""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2
from acp import RequestError


class Agent(ReferenceAgentV2):
    async def initialize(self, params):
        answer = await super().initialize(params)
        answer["capabilities"]["session"].pop("status")
        return answer

    async def status(self, params):
        raise RequestError.method_not_found("session/status")


main_v2(None, None, Agent)

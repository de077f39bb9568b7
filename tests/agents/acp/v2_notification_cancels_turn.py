"""v2, robustness: any notification naming a session cancels its turn, so `session/status` sent
without an id (a frame no ACP client sends) ends a turn that waits on the user's permission."""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def handle(self, method, params, is_notification):
        if is_notification and isinstance(params, dict) and "sessionId" in params:
            await self.cancel(params)
            return None
        return await super().handle(method, params, is_notification)


main_v2(None, None, Agent)

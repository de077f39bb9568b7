"""v2, conforming: a turn asks the user's permission a while after the prompt's answer (a model
that thinks first). The turn cases must wait for the permission request, not stop at the answer."""

import asyncio

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def turn(self, session, text):
        if "[permission]" in text:
            await asyncio.sleep(0.3)
        await super().turn(session, text)


main_v2(None, None, Agent)

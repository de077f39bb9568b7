"""Broken (SHOULD): every status call takes 60 ms (a slow storage round trip instead of a lookup)."""

import _base

import asyncio

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        await asyncio.sleep(0.06)
        return await super().session_status(params)


main(Agent)

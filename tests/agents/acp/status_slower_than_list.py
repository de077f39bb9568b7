"""Broken (SHOULD): status takes 20 ms, under the 50 ms bound but far over 10x session/list."""

import _base

import asyncio

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        await asyncio.sleep(0.02)
        return await super().session_status(params)


main(Agent)

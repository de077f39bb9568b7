"""Broken (SHOULD): status reads storage (20 ms a call), and so does session/list of any directory
that holds a session (25 ms). Measured against a list of the run's own directory, status looks
cheap (0.8x); against the agent's cheapest list, an empty directory, it is over 10x."""

import _base

import asyncio

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        await asyncio.sleep(0.02)
        return await super().session_status(params)

    async def list_sessions(self, cwd=None, cursor=None, **kwargs):
        listed = await super().list_sessions(cwd=cwd, cursor=cursor, **kwargs)
        if listed["sessions"]:
            await asyncio.sleep(0.025)
        return listed


main(Agent)

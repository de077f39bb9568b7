"""The reference agent, except that session/status never gets an answer (every other method does)."""

import asyncio

import _ref

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        await asyncio.Event().wait()
        raise AssertionError("an Event nobody sets was set")


main(Agent)

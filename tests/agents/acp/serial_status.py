"""Conforming: status calls are served one at a time, in the order they arrive, each reading
its storage for a millisecond (one reader over a session database). Calls sent together wait
their turn and are answered in order; nothing else waits on them. No case may read the wait as
a wrong answer, nor the order as the only one."""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        reader = self.__dict__.setdefault("_reader", asyncio.Lock())  # first come, first served
        async with reader:
            await asyncio.sleep(0.001)
            return await super().session_status(params)


main(Agent)

"""Conforming: status calls that arrive together are answered newest first. The agent gathers
the status calls that arrive within a millisecond and answers them in reverse order of arrival (a
LIFO work queue). JSON-RPC matches an answer to its request by id, never by order, so every case that
sends calls together must read each answer by its id."""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        batch = self.__dict__.setdefault("_batch", [])
        turn = asyncio.get_running_loop().create_future()
        batch.append(turn)
        if len(batch) == 1:
            _base.later(self, 0.001, lambda: self.answer_newest_first(batch))
        await turn
        return await super().session_status(params)

    async def answer_newest_first(self, batch):
        waiting = list(batch)
        batch.clear()
        for turn in reversed(waiting):
            turn.set_result(None)
            await asyncio.sleep(0)  # each answer is on its way before the next is let go


main(Agent)

"""Broken: status calls that overlap answer for one another's session.

The handler keeps the id it looks up on the agent (`self.asking`) across an await (an async
cache); a status call that arrives meanwhile overwrites it, so the first call answers, and
builds its -32002, for the second call's id. One call at a time, every answer is right. Caught
by status.overlap.answers-by-id, and by status.neighbours.sibling-turn, which asks about three
sessions at once. The cache takes 20 ms, so calls sent together overlap however the agent's reads
split them.
"""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        self.asking = self.status_params(params)
        await asyncio.sleep(0.02)  # the async cache
        return {"status": self.status_of(self.asking)}


main(Agent)

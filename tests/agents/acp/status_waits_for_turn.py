"""Broken: status waits for the session's turn to finish (it takes the session's lock).

Caught by status.active.during-turn: while the turn waits on the user's permission, status
gets no answer.
"""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        session_id = self.status_params(params)
        while session_id in self.turns:  # a turn is in progress
            await asyncio.sleep(0.01)
        return await super().session_status(params)


main(Agent)

"""Conforming: a turn thinks for 5.5 s before it asks the user's permission (a model call takes
that long), well within --timeout (10 s). The cases that ask status during a turn must wait for
the request as long as --timeout allows, not call the turn one that asks nothing."""

import _base

import asyncio

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def work(self, session_id, text, cancelled):
        if "[permission]" in text:
            try:
                await asyncio.wait_for(cancelled.wait(), 5.5)
                return False
            except TimeoutError:
                pass
        return await super().work(session_id, text, cancelled)


main(Agent)

"""Broken: a session is taken out of the in-memory table while its turn starts.

The prompt handler checks the session out (pops it) while it loads the turn's context (an
await of 200 ms), then puts it back: a status call right behind the prompt finds it missing from
memory and answers inactive. Once the turn is under way it reads active again, so status asked
during the turn (status.active.during-turn, after the permission request) passes. Caught by
status.overlap.race-prompt.
"""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def prompt(self, session_id, prompt, **kwargs):
        session = self.loaded.pop(session_id, None)
        if session is not None:
            await asyncio.sleep(0.2)  # the turn's context
            self.loaded[session_id] = session
        return await super().prompt(session_id, prompt, **kwargs)


main(Agent)

"""Broken: session/load and session/resume check the session out of the index of stored sessions
while they read its record from slow storage (300 ms, a network disk), so that no second load
reads it meanwhile, and put it back once the read is done. A status call in that window finds the
session neither in memory nor in the index and answers -32002: a session the agent knows, and is
loading, reported unknown. Breaks "Unknown: the Agent does not know this session. This is
returned as a -32002 error." (and "inactive: The Agent knows the session and can resume it"). One
call at a time never shows it: inactive before the resume, active after.

Caught by status.consistency.resume-makes-active#known-while-resuming (status calls sent right
behind the resume).
"""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main

READ_DELAY = 0.3  # reading a stored record


class Agent(ReferenceAgent):
    async def checkout(self, session_id):
        """The record is read while the session is out of the index, then the session goes back."""
        if session_id in self.loaded or session_id not in self.known:
            return
        self.known.discard(session_id)
        try:
            await asyncio.sleep(READ_DELAY)
        finally:
            self.known.add(session_id)

    async def load_session(self, cwd, session_id, **kwargs):
        await self.checkout(session_id)
        return await super().load_session(cwd, session_id, **kwargs)

    async def resume_session(self, session_id, cwd, **kwargs):
        await self.checkout(session_id)
        return await super().resume_session(session_id, cwd, **kwargs)


main(Agent)

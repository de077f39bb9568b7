"""Broken: session/new rebuilds the index of stored sessions, and status reads it half-built.

Creating a session rescans the session folder (another process may have stored sessions too):
the index is cleared, the folder listed (an await), and the index filled again. A status call
that arrives during session/new finds a stored session missing and answers -32002 for a
session the agent knows. Sessions in memory, and status one call at a time, are unaffected.
Caught by status.overlap.answers-by-id (a closed session asked beside a session/new).
"""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def new_session(self, cwd, **kwargs):
        answer = await super().new_session(cwd, **kwargs)
        stored = set(self.known)
        self.known.clear()
        await asyncio.sleep(0.002)  # listing the session folder
        self.known |= stored
        return answer


main(Agent)

"""Broken: status racing session/close brings the session back into memory.

Status of a session in memory records the call in the session's usage stats (an await), then
writes the session back into the in-memory table (a least-recently-used touch: re-inserted at
the end). A session/close that lands during that await is undone: the session is in memory
again, and reads active, after the close was answered. Status and close one after the other
never meet. Caught by status.overlap.race-close and by the sequences' races.
"""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        session_id = self.status_params(params)
        session = self.loaded.get(session_id)
        if session is not None:
            await asyncio.sleep(0.005)  # the usage stats
            self.loaded.pop(session_id, None)
            self.loaded[session_id] = session  # the touch, whether or not it was closed meanwhile
        return await super().session_status(params)


main(Agent)

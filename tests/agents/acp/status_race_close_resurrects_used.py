"""Sequence-only: status racing session/close brings a session that has had a turn back into
memory.

As status_race_close_resurrects.py, but status records the call only in the usage record a
session gets with its first turn: a fresh session, closed among status calls, stays closed
(status.overlap.race-close passes), while one that has had a turn is in memory again after its
close was answered. The sequences' race step, after a prompt, finds it.
"""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        session_id = self.status_params(params)
        session = self.loaded.get(session_id)
        if session is not None and session["history"]:
            await asyncio.sleep(0.005)  # the usage record
            self.loaded.pop(session_id, None)
            self.loaded[session_id] = session  # the touch, whether or not it was closed meanwhile
        return await super().session_status(params)


main(Agent)

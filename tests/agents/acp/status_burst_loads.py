"""Broken: status calls in flight at once for a session that is not in memory load it.

Status of a session the agent does not hold reads storage (a short await). To spare storage a
burst of probes, lookups of one id are coalesced: the calls that arrive while one is reading
wait for it, and the session is loaded so that they read it from memory. So two status calls in
flight at once load an inactive session; one call at a time never does (the 20 calls of
status.no-side-effects.inactive-stays-inactive pass). Caught by
status.overlap.burst-leaves-sessions and by the sequences' bursts.
"""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        session_id = self.status_params(params)
        if session_id in self.loaded or session_id not in self.known:
            return await super().session_status(params)
        reading = self.__dict__.setdefault("_reading", {})
        if session_id in reading:  # another call reads it: share its read, through memory
            await reading[session_id]
            self.loaded[session_id] = self.read(session_id)
            return await super().session_status(params)
        reading[session_id] = asyncio.get_running_loop().create_future()
        try:
            await asyncio.sleep(0.002)  # the storage read
            return await super().session_status(params)
        finally:
            reading.pop(session_id).set_result(None)


main(Agent)

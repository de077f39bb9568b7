"""Broken: status calls in flight at once for a never-created id create it.

Lookups of an id not in memory are coalesced (see status_burst_loads.py): the first call reads
storage, and the calls waiting beside it get a record made for them to read from memory. For an
id that does not exist the record is an empty session, saved like any other, so two status
calls in flight at once create the id: it reads inactive afterwards and resumes. One call at a
time never does (status.no-side-effects.unknown-stays-unknown passes). Caught by
status.overlap.burst-leaves-sessions and by the sequences' bursts.
"""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, now_iso


class Agent(ReferenceAgent):
    async def session_status(self, params):
        session_id = self.status_params(params)
        if session_id in self.loaded or session_id in self.known:
            return await super().session_status(params)
        reading = self.__dict__.setdefault("_reading", {})
        if session_id in reading:
            await reading[session_id]
            if session_id not in self.known:  # the shared record, whether or not the read found one
                cwd = str(self.state_dir.parent)
                self.save(
                    {
                        "sessionId": session_id,
                        "cwd": cwd,
                        "title": None,
                        "updatedAt": now_iso(),
                        "history": [],
                    }
                )
            return await super().session_status(params)
        reading[session_id] = asyncio.get_running_loop().create_future()
        try:
            await asyncio.sleep(0.002)  # the storage read
            return await super().session_status(params)
        finally:
            reading.pop(session_id).set_result(None)


main(Agent)

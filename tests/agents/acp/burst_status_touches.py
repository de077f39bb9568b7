"""Broken (MUST), with --memory-cap N: status looks the session up through an awaited cache; a status
call that arrives while another one about the same session is in flight takes the slow path, which
marks the session used. One call at a time never shows it; calls sent together make the agent
evict the sessions nobody asked about first."""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        session_id = self.status_params(params)
        in_flight = self.__dict__.setdefault("in_flight", {})
        if in_flight.get(session_id) and session_id in self.loaded:
            self.memory.use(session_id)
        in_flight[session_id] = in_flight.get(session_id, 0) + 1
        try:
            # The cache lookup: a call sent right after this one arrives meanwhile. It takes a
            # moment, as a real one does (one turn of the loop is a window no client can aim at:
            # the agent may read and finish each call before the next line arrives).
            await asyncio.sleep(0.001)
            return await super().session_status(params)
        finally:
            in_flight[session_id] -= 1


main(Agent)

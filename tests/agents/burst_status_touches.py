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
            await asyncio.sleep(0)  # an await: a call sent right after this one starts meanwhile
            return await super().session_status(params)
        finally:
            in_flight[session_id] -= 1


main(Agent)

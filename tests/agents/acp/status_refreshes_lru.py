"""Broken (MUST), with --memory-cap N: status counts as use, so it moves the session it reports to
the fresh end of the least-recently-used order. Under memory pressure the agent then evicts a
session nobody asked about instead of the one that was asked about; every answer is true."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if session_id in self.loaded:
            self.memory.use(session_id)
        return answer


main(Agent)

"""Broken (MUST), with --memory-cap N: status of a session that is not in memory (evicted, or never
created) caches the lookup in the same least-recently-used order as the sessions, so enough such
status calls push sessions the agent holds out of memory. Every answer is true; the twins never
show it (the asked twins are in memory). Caught by status.inactive.after-memory-eviction's rule
lookups-evict-none."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if isinstance(session_id, str) and session_id not in self.loaded:
            self.memory.use(f"lookup:{session_id}")  # cached before the lookup, found or not
        return super().status_of(session_id)

    def evict(self, session_id):
        if not session_id.startswith("lookup:"):
            super().evict(session_id)


main(Agent)

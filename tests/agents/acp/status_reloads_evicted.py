"""Broken (MUST), with --memory-cap N or --idle-evict-after S: status of a session the agent
evicted on its own (not one the client closed) reads it back into memory and answers active."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def evict(self, session_id):
        super().evict(session_id)
        self.__dict__.setdefault("evicted", set()).add(session_id)

    def status_of(self, session_id):
        if session_id in self.__dict__.get("evicted", set()) and session_id not in self.loaded:
            self.__dict__["evicted"].discard(session_id)
            self.loaded[session_id] = self.read(session_id)
            self.memory.use(session_id)
        return super().status_of(session_id)


main(Agent)

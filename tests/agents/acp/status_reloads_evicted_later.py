"""Broken (MUST), with --memory-cap N or --idle-evict-after S: status of a session the agent
evicted on its own answers inactive, truthfully, and reads the session back into memory 300 ms
later in the background (a cache warming itself for the client it expects next)."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def evict(self, session_id):
        super().evict(session_id)
        self.__dict__.setdefault("evicted", set()).add(session_id)

    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if session_id in self.__dict__.get("evicted", set()) and session_id not in self.loaded:

            async def reload():
                if session_id not in self.loaded and session_id in self.known:
                    self.loaded[session_id] = self.read(session_id)
                    self.memory.use(session_id)

            _base.later(self, 0.3, reload)
        return answer


main(Agent)

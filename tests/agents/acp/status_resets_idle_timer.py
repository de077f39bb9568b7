"""Broken (MUST), with --idle-evict-after S: status resets the idle timer of the session it reports
(its place in the memory order stays), so a session a router polls is never evicted while its
twin, left alone, is."""

import time

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if session_id in self.memory.last_used:
            self.memory.last_used[session_id] = time.monotonic()
        return answer


main(Agent)

"""Broken: status of an inactive session loads it into memory (silently, without replay)."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if answer == "inactive":
            self.loaded[session_id] = self.read(session_id)
        return answer


main(Agent)

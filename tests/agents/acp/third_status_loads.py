"""Sequence-only: the 3rd status call on an inactive session loads it into memory."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if answer == "inactive":
            self.calls = getattr(self, "calls", {})
            self.calls[session_id] = self.calls.get(session_id, 0) + 1
            if self.calls[session_id] == 3:
                self.loaded[session_id] = self.read(session_id)
        return answer


main(Agent)

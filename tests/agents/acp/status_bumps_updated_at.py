"""Broken: status writes the session back with a new `updatedAt`."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, now_iso


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        session = self.read(session_id)
        session["updatedAt"] = now_iso()
        self.save(session)
        return answer


main(Agent)

"""Broken: status of an active session answers `active`, then evicts it from memory."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        self.loaded.pop(session_id, None)
        return answer


main(Agent)

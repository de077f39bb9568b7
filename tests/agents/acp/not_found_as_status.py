"""Broken: an unknown session gets a result `{"status": "not_found"}` instead of error -32002."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if session_id not in self.loaded and session_id not in self.known:
            return "not_found"
        return super().status_of(session_id)


main(Agent)

"""Broken: after a restart, sessions found on disk are reported `active` though none is loaded."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        super().__init__(state_dir)
        self.found_at_start = set(self.known)

    def status_of(self, session_id):
        if session_id in self.found_at_start:
            return "active"
        return super().status_of(session_id)


main(Agent)

"""Broken (SHOULD): closed sessions are reported with an unrecognised value `archived`."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        return "archived" if answer == "inactive" else answer


main(Agent)

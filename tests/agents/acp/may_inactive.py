"""Conforming: takes the MAY path (`inactive` for any id not in memory); resume of unknown ids fails."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        return "active" if session_id in self.loaded else "inactive"


main(Agent)

"""Broken: a session whose turn is in progress is reported `inactive` (status looks at the pool of
idle sessions).

Caught by status.active.during-turn.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        return "inactive" if session_id in self.turns else answer


main(Agent)

"""Broken: status writes a line into the session's history ("status checked"), which session/load
then replays.

Caught by status.no-side-effects.history-unchanged.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        session = self.read(session_id)
        session["history"].append(["agent", "(status checked)"])
        self.save(session)
        return answer


main(Agent)

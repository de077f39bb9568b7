"""Broken: a session that has had no prompt yet is reported `inactive` (lazy start)."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        session = self.loaded.get(session_id)
        if session is not None and not session["history"]:
            return "inactive"
        return super().status_of(session_id)


main(Agent)

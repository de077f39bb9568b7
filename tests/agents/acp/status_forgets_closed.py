"""Broken: status answers -32002 for every session not in memory, while session/resume still
brings closed sessions back from disk (status consults memory only; "unknown" is a lie).

Caught by status.inactive.after-close, status.inactive.after-restart and
status.consistency.inactive-resumable: -32002, then a successful resume.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, not_found


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if session_id in self.loaded:
            return self.words["active"]
        raise not_found(session_id)


main(Agent)

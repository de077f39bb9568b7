"""Broken: status finds sessions by a case-folded id (the other methods match exactly).

Caught by status.identity.id-variants: status says `active` for the upper-case spelling of a
live id, and session/prompt with that spelling fails.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        folded = {s.lower(): s for s in self.known | set(self.loaded)}
        return super().status_of(folded.get(session_id.lower(), session_id))


main(Agent)

"""Broken: status accepts a short id, a prefix of at least 8 characters (as git does with hashes).

Caught by status.identity.id-variants (the id without its last character reads as the session).
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if len(session_id) >= 8:
            matches = sorted(s for s in self.known | set(self.loaded) if s.startswith(session_id))
            if len(matches) == 1:
                session_id = matches[0]
        return super().status_of(session_id)


main(Agent)

"""Broken: status strips whitespace around the id before it looks the session up.

Caught by status.identity.id-variants (" sess_… " and "sess_…\\n" read as the session).
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        return super().status_of(session_id.strip())


main(Agent)

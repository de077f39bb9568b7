"""Broken: status normalises the id with Unicode NFKC before it looks the session up.

Caught by status.identity.id-variants (the full-width spelling of an id reads as the session).
"""

import unicodedata

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        return super().status_of(unicodedata.normalize("NFKC", session_id))


main(Agent)

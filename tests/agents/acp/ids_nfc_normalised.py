"""Broken: status normalises the session id to Unicode NFC before anything else (its JSON layer
normalises every string), so the -32002 for an id sent in NFD echoes it in NFC: not the id asked
for. Only an id sent in NFD shows it (the live ids are ASCII).
Caught by status.error.unknown-session-data.
"""

import unicodedata

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_params(self, params):
        return unicodedata.normalize("NFC", super().status_params(params))


main(Agent)

"""Conforming: advertises no optional method at all (no list, close, delete, load or resume; no
modes, config options or extension methods), only session/status: the sequences run on
session/new, prompts, cancels and status alone.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def capabilities(self):
        return {
            "loadSession": False,
            "promptCapabilities": {"image": False, "audio": False, "embeddedContext": False},
            "sessionCapabilities": {"status": {}},
        }


main(Agent)

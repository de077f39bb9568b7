"""Broken: does not advertise session/status but answers it anyway (instead of -32601)."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def capabilities(self):
        caps = super().capabilities()
        del caps["sessionCapabilities"]["status"]
        return caps


main(Agent)

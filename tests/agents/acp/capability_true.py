"""Broken: advertises sessionCapabilities.status as `true` instead of an object."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def capabilities(self):
        caps = super().capabilities()
        caps["sessionCapabilities"]["status"] = True
        return caps


main(Agent)

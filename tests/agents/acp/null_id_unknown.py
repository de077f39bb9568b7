"""Broken: sessionId null is treated as an unknown session (-32002), not rejected (-32602)."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_params(self, params):
        if isinstance(params, dict) and "sessionId" in params and params["sessionId"] is None:
            return "null"
        return super().status_params(params)


main(Agent)

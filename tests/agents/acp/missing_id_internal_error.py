"""Broken: session/status without sessionId crashes the handler (-32603), not -32602."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_params(self, params):
        if isinstance(params, dict) and "sessionId" not in params:
            return params["sessionId"]  # KeyError -> the SDK answers -32603
        return super().status_params(params)


main(Agent)

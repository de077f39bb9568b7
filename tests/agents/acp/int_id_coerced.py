"""Broken: a numeric sessionId is coerced to a string and looked up (-32002), not rejected (-32602)."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_params(self, params):
        if isinstance(params, dict) and isinstance(params.get("sessionId"), int):
            return str(params["sessionId"])
        return super().status_params(params)


main(Agent)

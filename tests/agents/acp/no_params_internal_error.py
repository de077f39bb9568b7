"""Broken: session/status without a params member fails inside the handler (-32603).

Caught by status.params.no-params.
"""

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_params(self, params):
        if params is None:
            raise RequestError(
                -32603, "Internal error", {"details": "'NoneType' object has no attribute 'get'"}
            )
        return super().status_params(params)


main(Agent)

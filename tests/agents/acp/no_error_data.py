"""Broken: the -32002 error for an unknown session has no `data.sessionId`."""

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if session_id not in self.loaded and session_id not in self.known:
            raise RequestError(-32002, "Resource not found")
        return super().status_of(session_id)


main(Agent)

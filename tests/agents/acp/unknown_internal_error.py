"""Broken: an unknown session gets -32603 (internal error) instead of -32002."""

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if session_id not in self.loaded and session_id not in self.known:
            raise RequestError(-32603, "Resource not found", {"sessionId": session_id})
        return super().status_of(session_id)


main(Agent)

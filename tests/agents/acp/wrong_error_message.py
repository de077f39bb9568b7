"""Broken (SHOULD): the -32002 error's message is "Session not found", not "Resource not found"."""

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if session_id not in self.loaded and session_id not in self.known:
            raise RequestError(-32002, "Session not found", {"sessionId": session_id})
        return super().status_of(session_id)


main(Agent)

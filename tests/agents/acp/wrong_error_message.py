"""Broken (SHOULD): the -32002 error's message is the stack trace of the failed lookup, many lines
long, not a concise single sentence (JSON-RPC 2.0, 5.1)."""

import traceback

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if session_id not in self.loaded and session_id not in self.known:
            try:
                raise KeyError(session_id)
            except KeyError:
                trace = traceback.format_exc()
            raise RequestError(-32002, trace, {"sessionId": session_id})
        return super().status_of(session_id)


main(Agent)

"""Broken: the -32002 error's data.sessionId is cut to 256 characters (a log-friendly copy).

Caught by status.error.unknown-session-data (a 10 kB id asked for).
"""

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        try:
            return super().status_of(session_id)
        except RequestError:
            raise RequestError(-32002, "Resource not found", {"sessionId": session_id[:256]}) from None


main(Agent)

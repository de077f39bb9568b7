"""Conforming: session ids are ASCII (the agent makes them so), and status refuses an id with any
other character as invalid params (-32602) instead of looking it up. status.identity.id-variants
asks about a live id with a non-ASCII letter added: a refusal is no session either, so it must
not fail this agent.
"""

import _base
from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if isinstance(session_id, str) and not session_id.isascii():
            raise RequestError.invalid_params({"reason": "session ids are ASCII"})
        return super().status_of(session_id)


main(Agent)

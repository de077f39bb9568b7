"""Broken: the agent process dies on a sessionId with a control character (say, a log formatter)."""

import _base

import os

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_params(self, params):
        session_id = super().status_params(params)
        if any(ord(c) < 0x20 for c in session_id):
            os._exit(3)
        return session_id


main(Agent)

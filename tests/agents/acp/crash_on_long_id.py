"""Broken: the agent process dies on a sessionId longer than 4 kB."""

import _base

import os

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_params(self, params):
        session_id = super().status_params(params)
        if len(session_id) > 4096:
            os._exit(70)
        return session_id


main(Agent)

"""Conforming: the agent's model backend is down, so every session/prompt of a session in memory
is answered with an internal error (as an agent started without a working API key answers).
The status specs say nothing of prompts: every case whose probe is a prompt must say it cannot
observe (a prompt on a fresh session fails too), and no case may fail."""

import _base
from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def prompt(self, session_id, prompt, **kwargs):
        if session_id not in self.loaded:
            return await super().prompt(session_id, prompt, **kwargs)  # its -32002
        raise RequestError.internal_error({"reason": "model provider unreachable (HTTP 401)"})


main(Agent)

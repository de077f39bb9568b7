"""Broken (robustness): the agent logs each prompt to stdout, where only ACP messages may go.

Caught by transport.stdout.messages-only; every other case is judged as usual (the log lines are
noted as stdout noise where they arrive).
"""

import sys

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def prompt(self, session_id, prompt, **kwargs):
        sys.stdout.write(f"INFO prompt for {session_id}\n")
        sys.stdout.flush()
        return await super().prompt(session_id, prompt, **kwargs)


main(Agent)

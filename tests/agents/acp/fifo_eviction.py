"""Conforming, with --memory-cap N: over its cap the agent evicts the session that came into memory
first, whatever was done with it since (first in, first out; a prompt does not refresh it)."""

import time

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        super().__init__(state_dir)
        use = self.memory.use

        def first_in(session_id):
            if session_id in self.memory.last_used:
                self.memory.last_used[session_id] = time.monotonic()  # idle timer only: its place stays
            else:
                use(session_id)

        self.memory.use = first_in


main(Agent)

"""Conforming, with --memory-cap N: over its cap the agent evicts the most recently used session
(other than the one coming in), as a cache that protects long-lived sessions does. Which twins go
follows the order they were used in, as least-recently-used eviction does, the other way round."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        super().__init__(state_dir)

        def newest(keep):
            for session_id in reversed(self.memory.last_used):
                if session_id != keep and not self.memory.busy(session_id):
                    return session_id
            return None

        self.memory.victim = newest


main(Agent)

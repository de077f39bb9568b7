"""Conforming, with --idle-evict-after S: idle sessions are evicted by a sweep that runs only every
0.7 s, so a session leaves memory anywhere from S to S + 0.7 s after its last use."""

import asyncio
import time

import _base

from conformance.reference.acp.agent import ReferenceAgent, main

SWEEP = 0.7


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        super().__init__(state_dir)

        async def sweep():
            while True:
                await asyncio.sleep(SWEEP)
                for session_id in self.memory.idle(time.monotonic()):
                    self.memory.drop(session_id)

        self.memory.sweep = sweep


main(Agent)

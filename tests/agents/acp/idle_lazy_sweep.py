"""Conforming, with --idle-evict-after S: no timer; the agent looks for sessions idle past S only
when a request other than status comes in (as a server that sweeps on its own traffic does). A
session left alone stays in memory, truthfully `active`, until the next such request evicts it."""

import time

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        super().__init__(state_dir)
        self.memory.start_sweeper = lambda: None  # no timer

    def front(self, router):
        handler = super().front(router)

        async def sweeping(method, params, is_notification):
            if method != "session/status":
                for session_id in self.memory.idle(time.monotonic()):
                    self.memory.drop(session_id)
            return await handler(method, params, is_notification)

        return sweeping


main(Agent)

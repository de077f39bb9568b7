"""Broken (MUST), with --idle-evict-after S: the agent unloads every session once it has had no
request at all for S seconds, and a status call counts as a request. A router that polls one
session keeps every other session of the agent in memory."""

import time

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    counts_status = True

    def __init__(self, state_dir):
        super().__init__(state_dir)
        self.last_request = time.monotonic()

        def idle(now):
            after = self.policy.idle_evict_after
            if after is None or now - self.last_request < after:
                return []
            return [sid for sid in self.memory.last_used if not self.memory.busy(sid)]

        self.memory.idle = idle

    def front(self, router):
        handler = super().front(router)

        async def counted(method, params, is_notification):
            if method != "session/status" or self.counts_status:
                self.last_request = time.monotonic()
            return await handler(method, params, is_notification)

        return counted


if __name__ == "__main__":
    main(Agent)

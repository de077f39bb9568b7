"""Broken (MUST), over WebSocket: each connection caches the first status answer it gave.

B asks status (active, cached), A closes the session, B asks again and still hears `active`.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        cache = self.__dict__.setdefault("status_cache", {})
        if session_id not in cache:
            cache[session_id] = super().status_of(session_id)
        return cache[session_id]


main(Agent)

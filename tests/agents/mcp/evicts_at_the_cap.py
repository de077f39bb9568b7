"""A conforming MCP server (run with --session-cap N) that evicts on reaching its cap rather than
on passing it: the session a heartbeat opens makes N, and the least recently used goes at once,
so N - 1 sessions live together. Both readings of "a cap of N" are common, and no sentence of the
heartbeat spec bounds how many sessions a server keeps.

It defeats a memory twins round sized by the stated cap, which then evicts both twins: the suite
certified it before with heartbeat.twins.session-cap not testable; the round now finds the room one
short of the stated cap and judges (the reference's outcomes).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def evict(self):
        if self.session_cap is None:
            return
        while len(self.sessions) >= self.session_cap:
            self.forget(next(iter(self.sessions)))


if __name__ == "__main__":
    main(store_factory=Store)

"""A conforming MCP server (run with --session-cap N) that makes room before it admits a new
session, and only once it holds more than N: with the new one, N + 1 sessions live together, the
least recently used evicted as the reference does. No sentence of the heartbeat spec bounds how
many sessions a server keeps.

It defeats a memory twins round sized by the stated cap, which then evicts neither twin: the suite
certified it before with heartbeat.twins.session-cap not testable; the round now finds the room one
past the stated cap and judges (the reference's outcomes).
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
        while len(self.sessions) > self.session_cap + 1:
            self.forget(next(iter(self.sessions)))


if __name__ == "__main__":
    main(store_factory=Store)

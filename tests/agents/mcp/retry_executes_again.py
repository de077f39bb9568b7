"""Broken MCP server: ignores idempotency keys: a retry is executed again and answered afresh.

Caught by heartbeat.idempotency.not-applied-twice (a later change does not survive the retry);
retry-answered asks only that a retry be answered, which this one is.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        self.results.clear()
        return super().heartbeat(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)

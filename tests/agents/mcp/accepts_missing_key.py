"""Broken MCP server: accepts a heartbeat without idempotencyKey (makes one up).

Caught by heartbeat.args.missing-idempotency-key.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        args = dict(args)
        args.setdefault("idempotencyKey", f"auto-{self._heartbeats}")
        return super().heartbeat(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)

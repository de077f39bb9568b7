"""Broken MCP server: answers invalid arguments with JSON-RPC -32603 (Internal error) instead of -32602 or isError.

Caught by heartbeat.args.* (e.g. heartbeat.args.missing-idempotency-key).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class InternalError(HeartbeatError):
    code = -32603


class Store(HeartbeatStore):
    def validate(self, args):
        try:
            super().validate(args)
        except HeartbeatError as exc:
            raise InternalError(f"internal error: {exc}") from None


if __name__ == "__main__":
    main(store_factory=Store)

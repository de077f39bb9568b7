"""Broken MCP server: takes any call with the same arguments as an earlier one for a retry, whatever its key.

Caught by heartbeat.idempotency.new-key-new-call.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main

import json


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        self.validate(args)
        same = {k: v for k, v in args.items() if k != "idempotencyKey"}
        key = json.dumps(same, sort_keys=True)
        return super().heartbeat(caller, {**args, "idempotencyKey": key})


if __name__ == "__main__":
    main(store_factory=Store)

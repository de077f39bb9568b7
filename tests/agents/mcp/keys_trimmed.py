"""Broken MCP server: trims idempotency keys before looking them up, so " K " is answered as a
retry of K.

Caught by heartbeat.idempotency.key-variants.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        if isinstance(args.get("idempotencyKey"), str):
            args = {**args, "idempotencyKey": args["idempotencyKey"].strip()}
        return super().heartbeat(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)

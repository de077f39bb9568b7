"""Broken MCP server: keeps retry results by key alone, for every caller and session, and
fingerprints a call without its sessionId: a key reused in another session, or by another caller
in a session of its own, is answered with the first session's result (another caller's included).

Caught by heartbeat.idempotency.key-across-sessions.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from keys_per_caller_cache import Store as PerCaller

from conformance.reference.mcp.server import main


class Store(PerCaller):
    def cache_key(self, caller, args):
        return args["idempotencyKey"]


if __name__ == "__main__":
    main(store_factory=Store)

"""Broken MCP server: looks session ids up case-insensitively, so "ABC" and "abc" are one session.

Caught by heartbeat.session.id-variants.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        if isinstance(args.get("sessionId"), str):
            args = {**args, "sessionId": args["sessionId"].casefold()}
        return super().heartbeat(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)

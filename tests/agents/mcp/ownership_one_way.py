"""Broken MCP server: the ownership check compares callers' identities by order, not equality
(`owner >= caller`), so it holds one way only: caller B is kept out of caller A's sessions, but
caller A reads and changes caller B's.

Caught by heartbeat.access.other-caller-rejected, which tries both ways.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def may_access(self, caller, session):
        return session.owner >= caller


if __name__ == "__main__":
    main(store_factory=Store)

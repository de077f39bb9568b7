"""Broken MCP server: its cursor repeats the last instruction of the previous page.

Caught by heartbeat.instructions.paging.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main

from conformance.reference.mcp.store import decode_cursor, encode_cursor


class Store(HeartbeatStore):
    def page(self, session, cursor):
        if cursor is not None:
            cursor = encode_cursor(max(decode_cursor(cursor) - 1, 0))
        return super().page(session, cursor)


if __name__ == "__main__":
    main(store_factory=Store)

"""Conforming MCP server: declares the `logging` capability (it handles `logging/setLevel`) and
logs every tools/call to the client as `notifications/message` at level info, unless the client
set a level above it. Defeats the assumption that a server sends no notification around a
heartbeat: notifications a declared capability allows pass heartbeat.wire.notifications-declared.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _logging import log_calls, set_level

from conformance.reference.mcp.server import main

if __name__ == "__main__":
    main(middleware=(log_calls,), handlers=lambda store: {"on_set_logging_level": set_level})

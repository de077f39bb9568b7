"""Broken MCP server: logs every tools/call to the client as `notifications/message` (level info,
before the result goes out) without declaring the `logging` capability: it handles no
`logging/setLevel`, so its handshake declares none, and the client cannot turn the messages down.

Modelled on blind round 8's `mcp_log_without_capability`, which the old suite (commit 95aca65)
certified: nothing compared the notifications a server sent with what its handshake declared.

Caught by heartbeat.wire.notifications-declared.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _logging import log_calls

from conformance.reference.mcp.server import main

if __name__ == "__main__":
    main(middleware=(log_calls,))

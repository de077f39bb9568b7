"""Broken MCP server: offers each heartbeat session as a resource for a dashboard,
``heartbeat://sessions/{id}`` described by its reported state; resources/read checks the owner, but
resources/list shows every caller's sessions. Caller B, refused by the tool, learns caller A's
session ids and steps from the list (blind round 18's class).

Caught by heartbeat.access.other-surfaces. The old suite (265e177) certified it: it read resources
only as the caller who made the sessions.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from _dashboard import dashboard

from conformance.reference.mcp.server import main

if __name__ == "__main__":
    main(handlers=lambda store: dashboard(store, scoped=False))

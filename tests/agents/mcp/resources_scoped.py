"""Conforming MCP server: offers each heartbeat session as a resource for a dashboard,
``heartbeat://sessions/{id}`` described by its reported state, resources/list showing the caller's
own sessions only and resources/read checking the owner. Defeats the assumption that a surface
showing sessions leaks them (heartbeat.access.other-surfaces judges it, and it passes).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from _dashboard import dashboard

from conformance.reference.mcp.server import main

if __name__ == "__main__":
    main(handlers=lambda store: dashboard(store, scoped=True))

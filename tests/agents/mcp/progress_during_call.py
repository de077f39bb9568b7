"""Conforming MCP server: when a tools/call carries `_meta.progressToken`, reports the heartbeat's
progressPercent as `notifications/progress` for that token on the call's own stream, before its
result ("The receiver MAY then send progress notifications"). Defeats the assumption that a server
sends no progress: progress during the call passes heartbeat.wire.progress-ends-with-call, and
heartbeat.wire.notifications-declared counts none for a token the suite sent.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _progress import progress_during

from conformance.reference.mcp.server import main

if __name__ == "__main__":
    main(middleware=(progress_during,))

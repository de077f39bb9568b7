"""Broken MCP server: when a tools/call carries `_meta.progressToken`, reports the heartbeat's
progressPercent as `notifications/progress` for that token from the write-behind task that runs
once the heartbeat is stored, about 50 ms after the call's result went out: progress for a token
whose request has completed. Without a token nothing changes.

Breaks MCP 2025-06-18, Progress: "Progress notifications MUST stop after completion" (and "MUST
only reference tokens that: Were provided in an active request"). Modelled on blind round 10's
`mcp_progress_after_result`, which the old suite (commit 95aca65) certified: it sent no
progressToken.

Caught by heartbeat.wire.progress-ends-with-call (over stdio; over Streamable HTTP on the
handshake era's GET stream).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _progress import progress_after

from conformance.reference.mcp.server import main

if __name__ == "__main__":
    main(middleware=(progress_after,))

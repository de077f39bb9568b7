"""The operator's side of the reference stdio MCP server: enqueue one human instruction.

    python -m conformance.reference.mcp.instruct SESSION_ID TEXT

Run in the server's working directory. Standard library only, so the suite can call it often
(``--instruct-cmd "python -m conformance.reference.mcp.instruct {sessionId} {text}"``). A server
started with ``--max-length N`` leaves its limit in the spool: a longer text is refused here
(exit 1), to the operator, never cut.
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m conformance.reference.mcp.instruct SESSION_ID TEXT", file=sys.stderr)
        return 2
    spool = Path(".heartbeat-spool")
    spool.mkdir(exist_ok=True)
    limit = max_length(spool)
    if limit is not None and len(argv[1]) > limit:
        print(f"refused: the instruction is longer than {limit} characters", file=sys.stderr)
        return 1
    name = f"{time.time_ns():020d}-{uuid.uuid4().hex[:8]}"  # names sort in arrival order
    partial = spool / f"{name}.part"
    partial.write_text(json.dumps({"sessionId": argv[0], "text": argv[1]}), encoding="utf-8")
    os.replace(partial, spool / f"{name}.json")  # the server never sees half a file
    return 0


def max_length(spool: Path) -> int | None:
    try:
        return int(json.loads((spool / "limits").read_text(encoding="utf-8"))["maxLength"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

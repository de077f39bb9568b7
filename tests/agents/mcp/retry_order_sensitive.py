"""Broken MCP server: a retry's arguments are compared as text, member order included, so the
same arguments in another order count as a different call: the retry is refused as a key reused
with other arguments.

Caught by heartbeat.idempotency.retry-answered (a retry must be answered), whose retry sends its
members in another order.
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp import store as reference
from conformance.reference.mcp.server import main

reference.fingerprint = lambda args: json.dumps(args)


if __name__ == "__main__":
    main()

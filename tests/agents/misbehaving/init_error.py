"""Answers initialize with a JSON-RPC error."""

import json
import sys

for line in sys.stdin:
    frame = json.loads(line)
    error = {"code": -32000, "message": "Authentication required"}
    print(json.dumps({"jsonrpc": "2.0", "id": frame.get("id"), "error": error}), flush=True)

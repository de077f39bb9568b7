"""Answers initialize with a protocol version the suite does not know."""

import json
import sys

for line in sys.stdin:
    frame = json.loads(line)
    result = {"protocolVersion": 9, "agentCapabilities": {}}
    print(json.dumps({"jsonrpc": "2.0", "id": frame.get("id"), "result": result}), flush=True)

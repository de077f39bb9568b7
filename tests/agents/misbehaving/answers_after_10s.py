"""Answers every request, 10 seconds late."""

import json
import sys
import time

for line in sys.stdin:
    frame = json.loads(line)
    time.sleep(10)
    result = {"protocolVersion": 1, "agentCapabilities": {"sessionCapabilities": {"status": {}}}}
    print(json.dumps({"jsonrpc": "2.0", "id": frame.get("id"), "result": result}), flush=True)

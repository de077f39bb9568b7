"""Answers initialize, then writes half a frame for every later request and stops."""

import json
import sys

for line in sys.stdin:
    frame = json.loads(line)
    if frame.get("method") == "initialize":
        result = {"protocolVersion": 1, "agentCapabilities": {"sessionCapabilities": {"status": {}}}}
        print(json.dumps({"jsonrpc": "2.0", "id": frame["id"], "result": result}), flush=True)
    else:
        sys.stdout.write('{"jsonrpc":"2.0","id":')
        sys.stdout.flush()

"""Answers initialize, then answers every request with the wrong id."""

import json
import sys

for line in sys.stdin:
    frame = json.loads(line)
    if frame.get("method") == "initialize":
        result = {"protocolVersion": 1, "agentCapabilities": {"sessionCapabilities": {"status": {}}}}
        print(json.dumps({"jsonrpc": "2.0", "id": frame["id"], "result": result}), flush=True)
    elif "id" in frame:
        print(json.dumps({"jsonrpc": "2.0", "id": frame["id"] + 1000, "result": {}}), flush=True)

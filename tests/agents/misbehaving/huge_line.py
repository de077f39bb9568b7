"""Answers initialize, then sends one 20 MB line in answer to session/new."""

import json
import sys

for line in sys.stdin:
    frame = json.loads(line)
    if frame.get("method") == "initialize":
        result = {"protocolVersion": 1, "agentCapabilities": {"sessionCapabilities": {"status": {}}}}
        print(json.dumps({"jsonrpc": "2.0", "id": frame["id"], "result": result}), flush=True)
    else:
        sys.stdout.write(
            f'{{"jsonrpc":"2.0","id":{frame["id"]},"result":{{"sessionId":"' + "x" * (20 << 20) + '"}}\n'
        )
        sys.stdout.flush()

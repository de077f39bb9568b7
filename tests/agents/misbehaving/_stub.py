"""A hand-written agent loop for misbehaviours the SDK cannot produce: answers initialize
(advertising session/status) and yields every other frame to the caller."""

import json
import sys

INIT = {"protocolVersion": 1, "agentCapabilities": {"sessionCapabilities": {"status": {}}}}


def requests_after_initialize():
    for line in sys.stdin:
        frame = json.loads(line)
        if frame.get("method") == "initialize":
            print(json.dumps({"jsonrpc": "2.0", "id": frame["id"], "result": INIT}), flush=True)
        else:
            yield frame

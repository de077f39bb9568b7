"""A minimal hand-written ACP responder for harness tests (no SDK: it misbehaves on purpose)."""

import json
import sys


def frames():
    for line in sys.stdin:
        line = line.strip()
        if line:
            yield json.loads(line)


def reply(frame, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": frame["id"], "result": result}) + "\n")
    sys.stdout.flush()


INIT = {"protocolVersion": 1, "agentCapabilities": {"sessionCapabilities": {"status": {}}}}

"""Prints a banner on stdout, answers with a bad envelope, and sends a stray response."""

import json
import sys

from _frames import INIT, frames, reply

print("Welcome to NoisyAgent v1!", flush=True)
for frame in frames():
    if frame.get("method") == "initialize":
        reply(frame, INIT)
    elif frame.get("method") == "session/new":
        sys.stdout.write(
            json.dumps({"jsonrpc": "1.0", "id": frame["id"], "result": {"sessionId": "s1"}, "error": None})
            + "\n"
        )
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": 999, "result": {}}) + "\n")
        sys.stdout.flush()

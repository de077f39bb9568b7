"""Prints log lines on stdout (a banner with colours and a tab, then progress) and never a JSON-RPC
message: the suite says what it printed instead of only that initialize went unanswered."""

import sys

print("Agent v1.2 \x1b[32mready\x1b[0m\ton stdio " + "x" * 300, flush=True)
print("loading model...", flush=True)
for line in sys.stdin:
    print(f"got {len(line)} bytes", flush=True)

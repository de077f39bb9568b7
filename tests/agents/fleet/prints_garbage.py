"""Answers every line with bytes that are not JSON-RPC (control characters, markup, invalid UTF-8)."""

import sys

for _ in sys.stdin.buffer:
    sys.stdout.buffer.write(b"\x1b[31m<b>garbage</b>\x00\xff\xfe {not json\n")
    sys.stdout.buffer.flush()

"""Broken MCP server: keeps idempotency keys in a 64-character column: a longer key that shares
its first 64 characters with an earlier one is taken for it (refused as reused with other
arguments).

Caught by heartbeat.boundary.key-lengths.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _rewrite import serve

if __name__ == "__main__":
    serve(key=lambda k: k[:64])

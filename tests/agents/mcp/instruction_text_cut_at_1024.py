"""Broken MCP server: stores instruction texts in a 1024-byte field, cut in UTF-8 bytes (and the
cut character dropped).

Caught by heartbeat.boundary.instruction-lengths.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _rewrite import serve

if __name__ == "__main__":
    serve(text=lambda t: t.encode()[:1024].decode(errors="ignore"))

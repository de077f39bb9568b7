"""Broken MCP server: stores instruction texts in a VARCHAR(255) that cuts longer ones.

Caught by heartbeat.boundary.instruction-lengths.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _rewrite import serve

if __name__ == "__main__":
    serve(text=lambda t: t[:255])

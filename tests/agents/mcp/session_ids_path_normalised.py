"""Broken MCP server: stores a session under a path built from its id, decoded and normalised
("up/../a" and "up/%2E%2E/a" are session "a").

Caught by heartbeat.boundary.id-encodings.
"""

import posixpath
from urllib.parse import unquote
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _rewrite import serve

if __name__ == "__main__":
    serve(session_id=lambda sid: posixpath.normpath(unquote(sid)))

"""Broken MCP server: decodes a session id twice on its way to the store (a proxy and the
framework each decode once): "a%252Fx" is session "a/x".

Caught by heartbeat.boundary.id-encodings.
"""

from urllib.parse import unquote
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _rewrite import serve

if __name__ == "__main__":
    serve(session_id=lambda sid: unquote(unquote(sid)))

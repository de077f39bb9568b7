"""Broken MCP server: its storage key for a session is the id percent-decoded once (the id is put
in a REST path, and the store decodes the path): "a%2Fx" is session "a/x", "a%25" is "a%".

Caught by heartbeat.boundary.id-encodings.
"""

from urllib.parse import unquote
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _rewrite import serve

if __name__ == "__main__":
    serve(session_id=unquote)

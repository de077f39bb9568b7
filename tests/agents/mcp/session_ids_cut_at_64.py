"""Broken MCP server: stores session ids in a 64-character column that cuts longer ones (a
database in non-strict mode): ids sharing their first 64 characters are one session.

Caught by heartbeat.boundary.session-id-lengths.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _rewrite import serve

if __name__ == "__main__":
    serve(session_id=lambda sid: sid[:64])

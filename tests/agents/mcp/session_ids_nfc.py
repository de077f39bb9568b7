"""Broken MCP server: normalises session ids to NFC (a decomposed "é" is the composed one).

Caught by heartbeat.boundary.id-encodings.
"""

import unicodedata
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _rewrite import serve

if __name__ == "__main__":
    serve(session_id=lambda sid: unicodedata.normalize("NFC", sid))

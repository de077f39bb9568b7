"""Broken MCP server: normalises instruction texts to NFKC on the way into storage (a ligature, a
fullwidth letter and a decomposed accent come back changed).

Caught by heartbeat.boundary.instruction-encodings.
"""

import pathlib
import sys
import unicodedata

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _rewrite import serve

if __name__ == "__main__":
    serve(text=lambda text: unicodedata.normalize("NFKC", text))

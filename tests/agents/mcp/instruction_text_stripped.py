"""Broken MCP server: "sanitises" operator input on the way into storage with ``text.strip()``: an
instruction whose first line is indented, or that ends with a newline, is delivered changed.

Breaks "Pending human instructions are delivered automatically" (the human's instruction, as
given, is not what the agent receives); texts with no whitespace at either end come back exactly.
Caught by heartbeat.boundary.instruction-encodings (its layout text).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _rewrite import serve

if __name__ == "__main__":
    serve(text=str.strip)

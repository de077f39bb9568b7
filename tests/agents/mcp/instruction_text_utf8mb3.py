"""Broken MCP server: stores instruction texts in a MySQL utf8mb3 column with strict mode off,
which cuts a text at its first character outside the Basic Multilingual Plane (an emoji).

Caught by heartbeat.boundary.instruction-encodings.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _rewrite import serve


def utf8mb3(text: str) -> str:
    for index, char in enumerate(text):
        if ord(char) > 0xFFFF:
            return text[:index]
    return text


if __name__ == "__main__":
    serve(text=utf8mb3)

"""Broken MCP server (SHOULD): to save the model's context window, the result's TextContent is
made from a copy of the result in which every string past 160 characters is cut to 159 and an
ellipsis; structuredContent keeps the whole values. A short heartbeat's text is its
structuredContent serialized; a long step, or a delivered instruction past 160 characters, is
not, and a host that hands the model the content reads it cut. Breaks MCP 2025-06-18's "a tool
that returns structured content SHOULD also return the serialized JSON in a TextContent block".

Caught by heartbeat.result.text-mirrors-structured (its long and non-ASCII strings). The suite of
d4be4d9 certified it under --strict (blind round 17): its one heartbeat carried short values.
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp import server

LIMIT = 160


def cut(value):
    if isinstance(value, str) and len(value) > LIMIT:
        return value[: LIMIT - 1] + "…"
    if isinstance(value, dict):
        return {k: cut(v) for k, v in value.items()}
    if isinstance(value, list):
        return [cut(v) for v in value]
    return value


class CutJson:
    """The json module, but a heartbeat result's strings are cut in the text it serializes."""

    def __getattr__(self, name):
        return getattr(json, name)

    def dumps(self, value, **kwargs):
        if isinstance(value, dict) and "sessionId" in value:
            value = cut(value)
        return json.dumps(value, **kwargs)


server.json = CutJson()

if __name__ == "__main__":
    server.main()

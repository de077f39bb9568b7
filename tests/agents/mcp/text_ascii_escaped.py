"""Conforming MCP server: the result's TextContent is structuredContent serialized with every
non-ASCII character escaped (`\\u00e9`, surrogate pairs for emoji) and two-space indents. Any
JSON spelling of the same value is its serialization."""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp import server


class EscapedJson:
    """The json module, but a heartbeat result's text escapes everything past ASCII, indented."""

    def __getattr__(self, name):
        return getattr(json, name)

    def dumps(self, value, **kwargs):
        if isinstance(value, dict) and "sessionId" in value:
            kwargs = {**kwargs, "ensure_ascii": True, "indent": 2}
        return json.dumps(value, **kwargs)


server.json = EscapedJson()

if __name__ == "__main__":
    server.main()

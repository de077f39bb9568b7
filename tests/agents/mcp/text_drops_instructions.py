"""Broken MCP server (SHOULD): to keep the text a model reads short, the result's TextContent holds
only the session's state; the instructions and the cursor are in structuredContent alone. A host
that hands the model a tool's content never delivers an instruction. Breaks MCP 2025-06-18's "a
tool that returns structured content SHOULD also return the serialized JSON in a TextContent
block". Caught by heartbeat.result.text-mirrors-structured; the suite of 856482f certified it
without a warning (found by the sixth blind round).
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp import server

FOR_THE_MODEL = ("sessionId", "status", "progressPercent", "currentStep", "stepIndex", "stepCount")


class TrimmedJson:
    """The json module, but a heartbeat result is serialized with its state only."""

    def __getattr__(self, name):
        return getattr(json, name)

    def dumps(self, value, **kwargs):
        if isinstance(value, dict) and "instructions" in value:
            value = {k: value[k] for k in FOR_THE_MODEL if k in value}
        return json.dumps(value, **kwargs)


server.json = TrimmedJson()

if __name__ == "__main__":
    server.main()

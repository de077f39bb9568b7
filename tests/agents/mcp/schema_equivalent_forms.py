"""A conforming MCP server that publishes the spec's schema in other JSON Schema 2020-12 spellings:
types as one-element lists, additionalProperties {"not": {}} (which accepts nothing, as false does),
stepCount's maximum as exclusiveMaximum 1001 (an integer), and progressPercent's bounds in an allOf.

The suite once compared spellings (heartbeat.schema.closed and .properties failed); it now compares
what each constraint accepts.
"""

import copy
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import INPUT_SCHEMA

SCHEMA = copy.deepcopy(INPUT_SCHEMA)
SCHEMA["properties"]["sessionId"]["type"] = ["string"]
SCHEMA["properties"]["progressPercent"] = {"type": ["number"], "allOf": [{"minimum": 0}, {"maximum": 100}]}
SCHEMA["properties"]["stepCount"] = {"type": "integer", "minimum": 1, "exclusiveMaximum": 1001}
SCHEMA["additionalProperties"] = {"not": {}}

if __name__ == "__main__":
    main(input_schema=SCHEMA)

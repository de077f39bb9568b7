"""A conforming MCP server that publishes the spec's schema with status as a local $ref into $defs
(what Pydantic emits for an Enum field): the same accepted instances, validation unchanged.

The suite once read "no enum" (heartbeat.schema.properties failed); it now resolves the $ref.
"""

import copy
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import INPUT_SCHEMA

SCHEMA = copy.deepcopy(INPUT_SCHEMA)
SCHEMA["$defs"] = {"Status": {"enum": ["active", "waiting", "blocked"], "type": "string", "title": "Status"}}
SCHEMA["properties"]["status"] = {"$ref": "#/$defs/Status"}

if __name__ == "__main__":
    main(input_schema=SCHEMA)

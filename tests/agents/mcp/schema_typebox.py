"""A conforming MCP server that publishes status as TypeBox writes a union of literals: anyOf of
const. The same accepted instances, validation unchanged.

The suite once read "no enum" (heartbeat.schema.properties failed); a union of literals is now an enum.
"""

import copy
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import INPUT_SCHEMA

SCHEMA = copy.deepcopy(INPUT_SCHEMA)
SCHEMA["properties"]["status"] = {
    "anyOf": [{"const": v, "type": "string"} for v in ("active", "waiting", "blocked")]
}

if __name__ == "__main__":
    main(input_schema=SCHEMA)

"""Broken (SHOULD) MCP server: stepIndex 3.0 and stepCount 10.0 are refused as not integers.

On top of the schema check, the handler converts the arguments to its typed record with a strict
integer check (`type(v) is int`, as Pydantic's strict mode or a hand-written check does): a client
whose JSON writer spells whole numbers with a fraction (Python float, serde f64) gets an isError
result for a heartbeat its published schema accepts. Certified by the suite before (blind 9).

Sentence: "This schema is shared with tools/list.", whose `"stepIndex": {"type": "integer", ...}`
matches 3.0 under JSON Schema 2020-12 (Validation 6.1.1: integer "matches any number with a zero
fractional part"). Caught by heartbeat.args.integral-numbers.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore


class Store(HeartbeatStore):
    def validate(self, args):
        super().validate(args)
        for name in ("stepIndex", "stepCount"):
            if name in args and type(args[name]) is not int:
                raise HeartbeatError(f"invalid arguments: {name} must be an integer")


if __name__ == "__main__":
    main(store_factory=Store)

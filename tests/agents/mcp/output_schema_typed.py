"""Conforming MCP server: the heartbeat tool publishes an outputSchema that types every field of
its result (the state fields nullable, the instructions a list of id and text), and every result
conforms to it, whatever the inputSchema lets a caller send. Defeats the assumption that a tool
declares no outputSchema: must pass.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from _output import output_schema

from conformance.reference.mcp.server import main

if __name__ == "__main__":
    main(output_schema=output_schema())

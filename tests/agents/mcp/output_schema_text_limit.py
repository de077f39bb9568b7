"""Broken MCP server: the outputSchema it publishes gives an instruction's text maxLength 1024 (the
operator console's limit, copied into the schema), while the operator hook takes longer texts and
the server delivers them whole. Only a result that delivers a long instruction breaks the schema:
no heartbeat's own arguments lead there. Caught by the check every result gets against the
tool's outputSchema, in the case that enqueues long instructions.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from _output import output_schema

from conformance.reference.mcp.server import main

if __name__ == "__main__":
    main(output_schema=output_schema(text={"maxLength": 1024}))

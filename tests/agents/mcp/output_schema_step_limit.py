"""Broken MCP server: the tool publishes an outputSchema generated from its storage model, whose
currentStep column is a VARCHAR(256) (maxLength 256), while the inputSchema puts no bound on
currentStep and the server stores and returns it whole. A heartbeat with a longer step succeeds
with structuredContent that breaks the tool's own outputSchema (the official SDK client rejects
it). Certified before (blind 14): the one result checked against the outputSchema carried a
short step. Caught by heartbeat.result.shape#inputs.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from _output import output_schema

from conformance.reference.mcp.server import main

if __name__ == "__main__":
    main(output_schema=output_schema(currentStep={"maxLength": 256}))

"""Every result of a tool that publishes an outputSchema conforms to it (MCP 2025-06-18, Tools,
Output Schema: "Servers MUST provide structured results that conform to this schema"): a check
on whatever result a case receives, since a result breaks the schema only for some inputs (a long
text the server keeps whole, a state one call reaches)."""

from __future__ import annotations

from typing import Any

import jsonschema
from jsonschema.exceptions import SchemaError

from conformance.core.outcomes import Violation
from conformance.targets.mcp.reading import ToolReply

__all__ = ["OUTPUT_SCHEMA_KEY", "OutputSchemaBroken", "output_problem"]

OUTPUT_SCHEMA_KEY = "output-schema"  # the sentence's key in the MCP revision file


class OutputSchemaBroken(Violation):
    """A tool result that does not conform to the tool's own outputSchema."""


def output_problem(tool: dict[str, Any] | None, reply: ToolReply) -> str | None:
    """What is wrong with ``reply`` against ``tool``'s outputSchema (None: nothing, or nothing to
    judge: a refusal, no outputSchema, or one that is no valid JSON Schema)."""
    schema = tool.get("outputSchema") if isinstance(tool, dict) else None
    if not isinstance(schema, dict) or not reply.succeeded:
        return None
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
        structured = reply.result.get("structuredContent")
        if structured is None:
            return "no structuredContent"
        error = next(jsonschema.Draft202012Validator(schema).iter_errors(structured), None)
    except (SchemaError, RecursionError, ValueError, TypeError):
        return None
    if error is None:
        return None
    where = "/".join(map(str, error.absolute_path))
    return f"structuredContent at /{where}: {error.message[:200]}"

"""MCP `session_heartbeat`: what a heartbeat answers, an MCP CallToolResult.

Spec: cases/revisions/sources/mcp-session-heartbeat-2025-06-18.txt ("Inspect protocol errors and
the tool result's isError flag") and MCP 2025-06-18's CallToolResult and outputSchema.
"""

from __future__ import annotations

from conformance.core.outcomes import Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.target import McpTarget, new_session_id

# "Inspect protocol errors and the tool result’s isError flag."
RESULT = requirement("mcp-session-heartbeat-2025-06-18", "result")


@case("heartbeat.result.shape", level=Level.MUST, spec=RESULT, needs=("heartbeat",))
async def result_is_a_tool_result(mcp: McpTarget, details: dict) -> None:
    """A heartbeat's result is an MCP CallToolResult (and matches the tool's outputSchema, if any)."""
    from mcp_types import CallToolResult
    from pydantic import ValidationError

    reply = await mcp.ok_heartbeat(new_session_id(), status="active")
    try:
        CallToolResult.model_validate(reply.result)
    except ValidationError as exc:
        problems = "; ".join(f"{'/'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5])
        raise Violation(
            f"the result is not an MCP CallToolResult: {problems}",
            expected="content: a list of content blocks; isError and structuredContent optional",
            observed=reply.result,
        ) from None
    output_schema = (mcp.tool or {}).get("outputSchema")
    if isinstance(output_schema, dict):
        import jsonschema

        structured = reply.result.get("structuredContent")
        errors = (
            []
            if structured is None
            else list(jsonschema.Draft202012Validator(output_schema).iter_errors(structured))
        )
        if structured is None or errors:
            raise Violation(
                "the tool declares an outputSchema but its structuredContent "
                + ("is missing" if structured is None else f"does not match it: {errors[0].message[:200]}"),
                expected="structuredContent conforming to the tool's outputSchema (MCP 2025-06-18)",
                observed=structured,
            )

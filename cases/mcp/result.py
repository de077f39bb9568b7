"""MCP `session_heartbeat`: what a heartbeat answers, an MCP CallToolResult.

Spec: cases/revisions/sources/mcp-session-heartbeat-2025-06-18.txt ("Inspect protocol errors and
the tool result's isError flag") and MCP 2025-06-18's CallToolResult and outputSchema.
"""

from __future__ import annotations

import json

from conformance.core.outcomes import Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.target import McpTarget, new_session_id

# "Inspect protocol errors and the tool result’s isError flag."
RESULT = requirement("mcp-session-heartbeat-2025-06-18", "result")
# "For backwards compatibility, a tool that returns structured content SHOULD also return the…"
STRUCTURED_TEXT = requirement("mcp-session-heartbeat-2025-06-18", "structured-text")


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


@case(
    "heartbeat.result.text-mirrors-structured", level=Level.SHOULD, spec=STRUCTURED_TEXT, needs=("heartbeat",)
)
async def text_mirrors_structured_content(mcp: McpTarget, details: dict) -> None:
    """A heartbeat result with structuredContent also carries it, serialized, in a text block: a
    host that hands the model a tool's content (not its structuredContent) sees the same state
    and instructions. Any JSON spelling passes (indented, keys in another order)."""
    reply = await mcp.ok_heartbeat(new_session_id(), status="active")
    result = reply.result if isinstance(reply.result, dict) else {}
    structured = result.get("structuredContent")
    if structured is None:
        return  # nothing to mirror
    texts: list[str] = [
        text
        for block in result.get("content") or []
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(text := block.get("text"), str)
    ]
    parsed = [_json_or_none(text) for text in texts]
    details["text_blocks"] = len(texts)
    if structured not in parsed:
        missing = sorted(set(structured) - set(next((p for p in parsed if isinstance(p, dict)), {})))
        raise Violation(
            "no text block of the result is the structuredContent serialized"
            + (
                f" (the text's JSON lacks {', '.join(missing[:8])})"
                if isinstance(structured, dict) and missing
                else ""
            ),
            expected="a TextContent block holding the structuredContent as JSON",
            observed={"structuredContent": structured, "text": [t[:400] for t in texts[:3]]},
        )


def _json_or_none(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return None

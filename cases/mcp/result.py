"""MCP `session_heartbeat`: what a heartbeat answers, an MCP CallToolResult.

Spec: cases/revisions/sources/mcp-session-heartbeat-2025-06-18.txt ("Inspect protocol errors and
the tool result's isError flag") and MCP 2025-06-18's CallToolResult and outputSchema.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from conformance.core.outcomes import Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.output import OutputSchemaBroken
from conformance.targets.mcp.target import McpTarget, new_session_id

# "Inspect protocol errors and the tool result’s isError flag."
RESULT = requirement("mcp-session-heartbeat-2025-06-18", "result")
# "For backwards compatibility, a tool that returns structured content SHOULD also return the…"
STRUCTURED_TEXT = requirement("mcp-session-heartbeat-2025-06-18", "structured-text")


@case("heartbeat.result.shape", level=Level.MUST, spec=RESULT, needs=("heartbeat",), rules=("inputs",))
async def result_is_a_tool_result(mcp: McpTarget, details: dict) -> None:
    """A heartbeat's result is an MCP CallToolResult (and matches the tool's outputSchema, if any).
    Rule inputs: a result matches the outputSchema whatever input the tool's inputSchema takes:
    heartbeats carrying, one field at a time, each status the inputSchema lists, strings of 300 and
    4097 characters (or its own maxLength) and the bounds it gives numbers, are answered with a
    refusal or with structured content that matches the outputSchema."""
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
    # The target has checked this result against the outputSchema (every result is): the edges next.
    if isinstance((mcp.tool or {}).get("outputSchema"), dict):
        await _results_match_for_every_input(mcp, details)


@case(
    "heartbeat.result.text-mirrors-structured", level=Level.SHOULD, spec=STRUCTURED_TEXT, needs=("heartbeat",)
)
async def text_mirrors_structured_content(mcp: McpTarget, details: dict) -> None:
    """A heartbeat result with structuredContent also carries it, serialized, in a text block: a
    host that hands the model a tool's content (not its structuredContent) sees the same state
    and instructions. Any JSON spelling passes (indented, keys in another order). Checked on a
    plain heartbeat and on heartbeats whose string fields carry what a text block is cut or
    escaped at: the inputSchema's long strings (300 and 4097 characters, or its maxLength) and
    non-ASCII text with quotes and a backslash; a call the server refuses is not held to it."""
    calls: list[tuple[str, dict[str, Any]]] = [("a plain heartbeat", {"status": "active"})]
    schema = (mcp.tool or {}).get("inputSchema")
    # The free-text fields (strings with no enum), and their edges: long strings.
    free = _free_text_fields(schema)
    if free:
        name, longest = free[0]
        text = MIRROR_TEXT[:longest] if longest else MIRROR_TEXT
        calls.append((f"{name}=<non-ASCII text>", {"status": "active", name: text}))
    for name, value in edge_inputs(schema):
        if name in dict(free) and isinstance(value, str) and len(calls) < MIRROR_CALLS:
            calls.append((f"{name}=<{len(value)} characters>", {"status": "active", name: value}))
    checked: dict[str, str] = {}
    details["checked"] = checked
    for n, (shown, fields) in enumerate(calls):
        try:
            # The plain heartbeat must be taken; an edge value may be refused.
            send = mcp.ok_heartbeat if n == 0 else mcp.heartbeat
            reply = await send(new_session_id(), **fields)
        except OutputSchemaBroken:
            checked[shown] = "its result breaks the outputSchema (heartbeat.result.shape judges that)"
            continue
        result = reply.result if isinstance(reply.result, dict) else {}
        if not reply.succeeded or result.get("structuredContent") is None:
            checked[shown] = "refused" if not reply.succeeded else "no structuredContent"
            continue
        problem = _mirror_problem(result)
        checked[shown] = problem or "mirrored"
        if problem:
            structured = result["structuredContent"]
            texts = _texts(result)
            raise Violation(
                f"for {shown}, {problem}",
                expected="a TextContent block holding the structuredContent as JSON",
                observed={"structuredContent": structured, "text": [t[:400] for t in texts[:3]]},
            )


# Heartbeats the mirror is checked on, at most; and a text that JSON escapes and a cut splits.
MIRROR_CALLS = 6
MIRROR_TEXT = 'étape « deux » – 検証 😀 "quoted" back\\slash ' * 4


def _free_text_fields(schema: Any) -> list[tuple[str, int]]:
    """The inputSchema's string properties without an enum, other than the suite's own, with
    their maxLength (0: none)."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    found: list[tuple[str, int]] = []
    for name, prop in (properties or {}).items():
        if name in OWN_FIELDS or not isinstance(prop, dict) or "enum" in prop:
            continue
        declared = prop.get("type")
        kinds: list[Any] = declared if isinstance(declared, list) else [declared]
        longest = prop.get("maxLength")
        if "string" in kinds:
            found.append((str(name), longest if isinstance(longest, int) and 0 < longest <= 100_000 else 0))
    return found


def _texts(result: dict[str, Any]) -> list[str]:
    return [
        text
        for block in result.get("content") or []
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(text := block.get("text"), str)
    ]


def _mirror_problem(result: dict[str, Any]) -> str | None:
    """What keeps every text block of ``result`` from being its structuredContent serialized."""
    structured = result.get("structuredContent")
    parsed = [_json_or_none(text) for text in _texts(result)]
    if structured in parsed:
        return None
    text = next((p for p in parsed if isinstance(p, dict)), None)
    lead = "no text block of the result is the structuredContent serialized"
    missing = sorted(set(structured) - set(text or {})) if isinstance(structured, dict) else []
    if missing:
        return f"{lead} (the text's JSON lacks {', '.join(str(m) for m in missing[:8])})"
    differing = _differing(structured, text)
    return lead + (f" ({differing})" if differing else "")


def _differing(structured: Any, text: Any) -> str:
    """The first member whose value the text's JSON gives otherwise, described."""
    if not isinstance(structured, dict) or not isinstance(text, dict):
        return ""
    for key, value in structured.items():
        if text.get(key) != value:
            said = text.get(key)
            if isinstance(value, str) and isinstance(said, str):
                return f"its {key} is {len(said)} characters where structuredContent's is {len(value)}"
            return f"its {key} differs from structuredContent's"
    return ""


def _json_or_none(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return None


# Fields of the inputSchema the inputs rule leaves as the suite's other calls set them: the
# session, the key, and what refers to earlier answers (acknowledgements, a cursor).
OWN_FIELDS = ("sessionId", "idempotencyKey", "acknowledgedInstructionIds", "instructionCursor")
LONG_STRINGS = (300, 4097)  # past a 255/256 storage column, and past 4 KiB
MAX_EDGE_CALLS = 16


def edge_inputs(input_schema: Any) -> list[tuple[str, Any]]:
    """(field, value) at the edges of what ``input_schema`` takes, at most MAX_EDGE_CALLS: each
    enum value, strings of LONG_STRINGS characters (its maxLength instead, where it gives one) and
    a number's minimum and maximum (0 and 100 where it gives none)."""
    properties = input_schema.get("properties") if isinstance(input_schema, dict) else None
    edges: list[tuple[str, Any]] = []
    for name, prop in (properties or {}).items():
        if name in OWN_FIELDS or not isinstance(prop, dict):
            continue
        declared = prop.get("type")
        kinds: list[Any] = declared if isinstance(declared, list) else [declared]
        if isinstance(prop.get("enum"), list):
            edges += [(name, v) for v in prop["enum"][:8] if isinstance(v, (str, int, float))]
        elif "string" in kinds:
            longest = prop.get("maxLength")
            lengths = [longest] if isinstance(longest, int) and 0 < longest <= 100_000 else list(LONG_STRINGS)
            edges += [(name, _filler(name, n)) for n in lengths]
        elif "integer" in kinds or "number" in kinds:
            low, high = prop.get("minimum", 0), prop.get("maximum", 100)
            edges += [
                (name, v) for v in (low, high) if isinstance(v, (int, float)) and not isinstance(v, bool)
            ]
    return edges[:MAX_EDGE_CALLS]


def _filler(name: str, length: int) -> str:
    head = f"conformance {name} {uuid.uuid4().hex[:8]} "
    return (head + "x" * length)[:length]


async def _results_match_for_every_input(mcp: McpTarget, details: dict) -> None:
    """Rule inputs: each edge of the inputSchema in a heartbeat of its own (the target checks every
    result against the outputSchema: a mismatch here is this rule's)."""
    tried: dict[str, str] = {}
    details["edge_inputs"] = tried
    for name, value in edge_inputs((mcp.tool or {}).get("inputSchema")):
        shown = f"{name}={value!r}" if not isinstance(value, str) else f"{name}=<{len(value)} characters>"
        try:
            reply = await mcp.heartbeat(new_session_id(), **{"status": "active", name: value})
        except OutputSchemaBroken as broken:
            tried[shown] = "does not match"
            raise Violation(
                f"a heartbeat with {shown}, which the tool's inputSchema takes, was answered with "
                f"{broken.observed}",
                expected="a refusal, or structuredContent conforming to the tool's outputSchema (MCP 2025-06-18)",
                observed=broken.observed,
                rule="inputs",
            ) from None
        tried[shown] = "matches" if reply.succeeded else "refused"

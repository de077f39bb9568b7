"""MCP `session_heartbeat`: the tool's advertisement in tools/list and its input schema.

Spec: cases/revisions/sources/mcp-session-heartbeat-2025-06-18.txt ("This schema is shared with
tools/list", "Use the tool name below in params.name"): the schema a server lists is the spec's.
"""

from __future__ import annotations

from typing import Any

from conformance.core.outcomes import Unimplemented, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.schema import compare_properties, compare_required, is_closed
from conformance.targets.mcp.target import TOOL, McpTarget

# "This schema is shared with tools/list."
SHARED = requirement("mcp-session-heartbeat-2025-06-18", "shared")
# "Use the tool name below in params.name."
NAME = requirement("mcp-session-heartbeat-2025-06-18", "name")


@case("heartbeat.tools.listed", level=Level.MUST, spec=NAME, needs=(), shows_handshake=True)
async def tool_is_listed(mcp: McpTarget, details: dict) -> None:
    """tools/list lists session_heartbeat with an object inputSchema."""
    details["tools"] = [t.get("name") for t in mcp.tools][:50]
    tool = mcp.tool
    if tool is None:
        raise Unimplemented(f"tools/list has no {TOOL} tool (it lists: {details['tools']})")
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise Violation(
            f"{TOOL}'s inputSchema is not a JSON Schema object: {str(schema)[:200]}",
            expected='an inputSchema with "type": "object" (MCP tools/list)',
            observed=schema,
        )


@case("heartbeat.schema.required", level=Level.MUST, spec=SHARED, needs=("heartbeat",), shows_handshake=True)
async def schema_requires_what_the_spec_requires(mcp: McpTarget, details: dict) -> None:
    """The inputSchema requires sessionId and idempotencyKey, and nothing more."""
    differences = compare_required((mcp.tool or {}).get("inputSchema") or {})
    _report_differences(differences, details, "required: exactly sessionId and idempotencyKey")


@case("heartbeat.schema.closed", level=Level.MUST, spec=SHARED, needs=("heartbeat",), shows_handshake=True)
async def schema_is_closed(mcp: McpTarget, details: dict) -> None:
    """The inputSchema has additionalProperties: false (or a schema that accepts nothing, e.g.
    {"not": {}})."""
    schema = (mcp.tool or {}).get("inputSchema") or {}
    if not is_closed(schema):
        raise Violation(
            f"additionalProperties is {schema.get('additionalProperties', 'absent')!r}: the tool's schema accepts "
            "properties the spec's rejects",
            expected="additionalProperties: false",
            observed=schema.get("additionalProperties", "absent"),
        )


@case(
    "heartbeat.schema.properties", level=Level.MUST, spec=SHARED, needs=("heartbeat",), shows_handshake=True
)
async def schema_fields_match(mcp: McpTarget, details: dict) -> None:
    """Every property of the spec's schema is there, with the spec's type, enum and bounds."""
    differences = compare_properties((mcp.tool or {}).get("inputSchema") or {})
    _report_differences(differences, details, "each property as the spec's input schema gives it")


def _report_differences(differences: list[Any], details: dict, expected: str) -> None:
    if differences:
        details["differences"] = [str(d) for d in differences]
        raise Violation(
            f"{len(differences)} field(s) differ from the spec's schema: " + "; ".join(map(str, differences)),
            expected=expected,
            observed=details["differences"],
        )

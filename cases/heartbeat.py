"""MCP `session_heartbeat`: the tool's advertisement, its arguments, its result and idempotency.

Spec: ../shared/spec/001_*.txt (vendored in cases/revisions/sources/), and MCP 2025-06-18's
rule that servers validate tool inputs. An invalid call must be rejected, by a JSON-RPC error
-32602 or by a result with ``isError: true`` (MCP 2025-06-18 allows both), never accepted.
"""

from __future__ import annotations

from typing import Any

from conformance.heartbeat_schema import compare_properties, compare_required
from conformance.mcp import TOOL, McpTarget, ToolReply, new_key, new_session_id
from conformance.outcomes import MissingInput, Unimplemented, Violation
from conformance.registry import Level, SpecRef, case

SOURCE = "mcp-session-heartbeat@2025-06-18"
MCP = "mcp-2025-06-18"

PURPOSE = SpecRef(SOURCE, "session_heartbeat", "Report session status, progress, and the current step.")
SHARED = SpecRef(SOURCE, "Input schema", "This schema is shared with tools/list.")
NAME = SpecRef(SOURCE, "Call this tool", "Use the tool name below in params.name.")
VALIDATE = SpecRef(
    MCP, "Server Features / Tools / Security Considerations", "Servers MUST: Validate all tool inputs"
)
STEP_PAIR = SpecRef(
    SOURCE, "Input schema: stepIndex", "Optional 1-based position of the current step. Send with stepCount."
)
RESULT = SpecRef(
    SOURCE, "Read the result before continuing", "Inspect protocol errors and the tool result’s isError flag."
)
RETRIES = SpecRef(
    SOURCE,
    "Read the result before continuing",
    "Preserve correlation IDs and unchanged mutation idempotency keys across safe retries.",
)
INVALID_PARAMS = -32602
REJECTED = "a JSON-RPC error -32602 (Invalid params) or a result with isError: true"


def expect_rejected(reply: ToolReply, what: str) -> None:
    if reply.rpc_error:
        if reply.reply.code != INVALID_PARAMS:
            raise Violation(
                f"{what} was answered with JSON-RPC error {reply.reply.code}; invalid arguments are -32602 "
                "(Invalid params), or a tool result with isError: true",
                expected=REJECTED,
                observed=reply.describe(),
            )
        return
    if not reply.tool_error:
        raise Violation(
            f"{what} was accepted: {reply.describe()}", expected=REJECTED, observed=reply.describe()
        )


async def check_rejected(mcp: McpTarget, what: str, **fields: Any) -> None:
    fields.setdefault("sessionId", new_session_id())
    fields.setdefault("idempotencyKey", new_key())
    expect_rejected(await mcp.call({k: v for k, v in fields.items() if v is not _OMIT}), what)


_OMIT: Any = object()


# -- advertisement ---------------------------------------------------------------------------------


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
    """The inputSchema has additionalProperties: false."""
    schema = (mcp.tool or {}).get("inputSchema") or {}
    if schema.get("additionalProperties") is not False:
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


# -- arguments -------------------------------------------------------------------------------------


@case("heartbeat.args.valid-call-succeeds", level=Level.MUST, spec=PURPOSE, needs=("heartbeat",))
async def valid_call_succeeds(mcp: McpTarget, details: dict) -> None:
    """A heartbeat with every field valid succeeds (isError false)."""
    fields = {
        "status": "active",
        "progressPercent": 42.5,
        "currentStep": "conformance check",
        "stepIndex": 2,
        "stepCount": 5,
        "acknowledgedInstructionIds": [],
    }
    reply = await mcp.heartbeat(new_session_id(), **fields)
    if not reply.succeeded:
        raise Violation(
            f"a valid heartbeat was answered with {reply.describe()}",
            expected="a result with isError false",
            observed=reply.describe(),
        )


INVALID_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "missing-idempotency-key": ("a heartbeat without idempotencyKey", {"idempotencyKey": _OMIT}),
    "missing-session-id": ("a heartbeat without sessionId", {"sessionId": _OMIT}),
    "status-outside-enum": ("status 'finished' (not active, waiting or blocked)", {"status": "finished"}),
    "step-index-zero": ("stepIndex 0 (minimum 1)", {"stepIndex": 0, "stepCount": 3}),
    "step-count-too-large": ("stepCount 1001 (maximum 1000)", {"stepIndex": 1, "stepCount": 1001}),
    "unknown-property": ("an unknown property 'priority'", {"priority": "high"}),
}


def _invalid_case(slug: str, what: str, fields: dict[str, Any]) -> None:
    async def run(mcp: McpTarget, details: dict) -> None:
        await check_rejected(mcp, what, **fields)

    run.__doc__ = f"The tool rejects {what}."
    run.__name__ = run.__qualname__ = f"rejects_{slug.replace('-', '_')}"
    case(f"heartbeat.args.{slug}", level=Level.MUST, spec=VALIDATE, needs=("heartbeat",))(run)


for _slug, (_what, _fields) in INVALID_CALLS.items():
    _invalid_case(_slug, _what, _fields)


@case("heartbeat.args.progress-out-of-range", level=Level.MUST, spec=VALIDATE, needs=("heartbeat",))
async def rejects_progress_out_of_range(mcp: McpTarget, details: dict) -> None:
    """The tool rejects progressPercent 101 and -1 (range 0–100)."""
    await check_rejected(mcp, "progressPercent 101 (maximum 100)", progressPercent=101)
    await check_rejected(mcp, "progressPercent -1 (minimum 0)", progressPercent=-1)


@case("heartbeat.args.step-pair", level=Level.SHOULD, spec=STEP_PAIR, needs=("heartbeat",))
async def rejects_half_a_step_pair(mcp: McpTarget, details: dict) -> None:
    """stepIndex without stepCount, and stepCount without stepIndex, are rejected."""
    await check_rejected(mcp, "stepIndex without stepCount", stepIndex=1)
    await check_rejected(mcp, "stepCount without stepIndex", stepCount=4)


# -- the result ------------------------------------------------------------------------------------


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


# -- idempotency -----------------------------------------------------------------------------------


@case("heartbeat.idempotency.retry-same-result", level=Level.MUST, spec=RETRIES, needs=("heartbeat",))
async def retry_returns_the_same_result(mcp: McpTarget, details: dict) -> None:
    """A retry (same key, same arguments) after another heartbeat returns the first call's result."""
    sid, key = new_session_id(), new_key()
    if mcp.can_instruct:  # a pending instruction makes a re-executed call visible
        await mcp.instruct(sid, f"conformance retry check {key[-8:]}")
    first = await mcp.ok_heartbeat(sid, idempotencyKey=key, status="waiting", progressPercent=10)
    acks = [i["id"] for i in _instructions_or_none(mcp, first)]
    await mcp.ok_heartbeat(sid, status="blocked", progressPercent=50, acknowledgedInstructionIds=acks)
    retry = await mcp.heartbeat(sid, idempotencyKey=key, status="waiting", progressPercent=10)
    details.update(first=first.result, retry=retry.result if retry.reply.ok else retry.describe())
    if not retry.succeeded or _comparable(retry) != _comparable(first):
        raise Violation(
            "a retry with the same idempotencyKey and arguments did not return the first call's result (it was "
            "executed again, or answered differently)",
            expected=first.describe(),
            observed=retry.describe(),
        )


@case("heartbeat.idempotency.not-applied-twice", level=Level.MUST, spec=RETRIES, needs=("heartbeat",))
async def retry_is_not_applied_again(mcp: McpTarget, details: dict) -> None:
    """A retry does not apply its arguments again: a later status change survives it."""
    sid, key = new_session_id(), new_key()
    await mcp.ok_heartbeat(sid, idempotencyKey=key, status="waiting")
    await mcp.ok_heartbeat(sid, status="blocked")
    await mcp.heartbeat(sid, idempotencyKey=key, status="waiting")
    after = recorded_status(await mcp.ok_heartbeat(sid))
    if after != "blocked":
        raise Violation(
            f"after waiting (key K), blocked, then a retry of K, the session's status is {after!r}: the retry was "
            "applied a second time",
            expected="status 'blocked' (the retry changes nothing)",
            observed=after,
        )


@case("heartbeat.idempotency.new-key-new-call", level=Level.MUST, spec=RETRIES, needs=("heartbeat",))
async def new_key_is_a_new_call(mcp: McpTarget, details: dict) -> None:
    """The same arguments under a new key are a new call, applied again."""
    sid = new_session_id()
    await mcp.ok_heartbeat(sid, status="waiting")
    await mcp.ok_heartbeat(sid, status="blocked")
    await mcp.ok_heartbeat(sid, status="waiting")  # same arguments as the first call, new key
    after = recorded_status(await mcp.ok_heartbeat(sid))
    if after != "waiting":
        raise Violation(
            f"after waiting, blocked, then waiting again under a new key, the status is {after!r}: the server took the "
            "new call for a retry of the first (deduplicated by arguments, not by key)",
            expected="status 'waiting'",
            observed=after,
        )


@case(
    "heartbeat.idempotency.key-reuse-different-args", level=Level.SHOULD, spec=RETRIES, needs=("heartbeat",)
)
async def key_reuse_with_other_arguments(mcp: McpTarget, details: dict) -> None:
    """The same key with different arguments is reported as an error, not silently accepted."""
    sid, key = new_session_id(), new_key()
    await mcp.ok_heartbeat(sid, idempotencyKey=key, status="active", progressPercent=10)
    reply = await mcp.heartbeat(sid, idempotencyKey=key, status="blocked", progressPercent=90)
    if not reply.rejected:
        raise Violation(
            "the same idempotencyKey with different arguments was accepted silently",
            expected="an error: the key was already used with other arguments",
            observed=reply.describe(),
        )


def recorded_status(reply: ToolReply) -> Any:
    data = reply.data
    if not isinstance(data, dict) or "status" not in data:
        raise MissingInput(
            "heartbeat results do not show the session's recorded status (no top-level 'status' in structuredContent "
            "or in JSON text content), so whether a call was applied cannot be observed from outside"
        )
    return data["status"]


def _instructions_or_none(mcp: McpTarget, reply: ToolReply) -> list[dict[str, Any]]:
    try:
        return mcp.instructions(reply)
    except MissingInput:
        return []


def _comparable(reply: ToolReply) -> Any:
    return (reply.tool_error, reply.data if reply.data is not None else reply.text)

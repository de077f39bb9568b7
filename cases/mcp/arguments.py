"""MCP `session_heartbeat`: its arguments, valid ones accepted and invalid ones rejected.

Spec: cases/revisions/sources/mcp-session-heartbeat-2025-06-18.txt, and MCP 2025-06-18's rule that
servers validate tool inputs. An invalid call must be rejected, by a JSON-RPC error -32602 or by a
result with ``isError: true`` (MCP 2025-06-18 allows both), never accepted, and changes nothing.
"""

from __future__ import annotations

from typing import Any

from conformance.core.outcomes import MissingInput, NotApplicable, Problems, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.probe import calibrated, same
from conformance.targets.mcp.target import McpTarget, ToolReply, has, new_key, new_session_id

# "Report session status, progress, and the current step."
PURPOSE = requirement("mcp-session-heartbeat-2025-06-18", "purpose")
# "Servers MUST: Validate all tool inputs"
VALIDATE = requirement("mcp-session-heartbeat-2025-06-18", "validate")
# "This schema is shared with tools/list."
SHARED = requirement("mcp-session-heartbeat-2025-06-18", "shared")
# "Optional 1-based position of the current step. Send with stepCount."
STEP_PAIR = requirement("mcp-session-heartbeat-2025-06-18", "step-pair")


INVALID_PARAMS = -32602
# An argument left out of a call (None is a value a call can send).
OMIT: Any = object()
REJECTED = "a JSON-RPC error -32602 (Invalid params) or a result with isError: true"


def expect_rejected(reply: ToolReply, what: str) -> None:
    if reply.rpc_error:
        if reply.reply.code != INVALID_PARAMS:
            raise Violation(
                f"{what} was answered with JSON-RPC error {reply.reply.code}; invalid arguments are -32602 "
                "(Invalid params), or a tool result with isError: true",
                expected=REJECTED,
                observed=reply.describe(),
                spec_key="result",  # refused, but not as a client reads a refusal: the result's sentence
            )
        return
    if not reply.tool_error:
        raise Violation(
            f"{what} was accepted: {reply.describe()}", expected=REJECTED, observed=reply.describe()
        )


async def check_rejected(mcp: McpTarget, what: str, **fields: Any) -> None:
    fields.setdefault("sessionId", new_session_id())
    fields.setdefault("idempotencyKey", new_key())
    reply = await mcp.call({k: v for k, v in fields.items() if v is not OMIT})
    if reply.rejected:
        # A server that takes no session the suite makes up refuses every call, valid or not.
        await mcp.require_made_up_sessions()
    expect_rejected(reply, what)


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
    sid = new_session_id()
    reply = await mcp.heartbeat(sid, **fields)
    if not reply.succeeded:
        await mcp.explain_refusal(sid, reply, fields)
        raise Violation(
            f"a valid heartbeat was answered with {reply.describe()}",
            expected="a result with isError false",
            observed=reply.describe(),
        )


@case("heartbeat.args.missing-idempotency-key", level=Level.MUST, spec=VALIDATE, needs=("heartbeat",))
async def rejects_missing_idempotency_key(mcp: McpTarget, details: dict) -> None:
    """The tool rejects a heartbeat without idempotencyKey."""
    await check_rejected(mcp, "a heartbeat without idempotencyKey", idempotencyKey=OMIT)


@case("heartbeat.args.missing-session-id", level=Level.MUST, spec=VALIDATE, needs=("heartbeat",))
async def rejects_missing_session_id(mcp: McpTarget, details: dict) -> None:
    """The tool rejects a heartbeat without sessionId."""
    await check_rejected(mcp, "a heartbeat without sessionId", sessionId=OMIT)


@case("heartbeat.args.status-outside-enum", level=Level.MUST, spec=VALIDATE, needs=("heartbeat",))
async def rejects_status_outside_enum(mcp: McpTarget, details: dict) -> None:
    """The tool rejects status 'finished' (not active, waiting or blocked)."""
    await check_rejected(mcp, "status 'finished' (not active, waiting or blocked)", status="finished")


@case("heartbeat.args.step-index-zero", level=Level.MUST, spec=VALIDATE, needs=("heartbeat",))
async def rejects_step_index_zero(mcp: McpTarget, details: dict) -> None:
    """The tool rejects stepIndex 0 (minimum 1)."""
    await check_rejected(mcp, "stepIndex 0 (minimum 1)", stepIndex=0, stepCount=3)


@case("heartbeat.args.step-count-too-large", level=Level.MUST, spec=VALIDATE, needs=("heartbeat",))
async def rejects_step_count_too_large(mcp: McpTarget, details: dict) -> None:
    """The tool rejects stepCount 1001 (maximum 1000)."""
    await check_rejected(mcp, "stepCount 1001 (maximum 1000)", stepIndex=1, stepCount=1001)


@case("heartbeat.args.unknown-property", level=Level.MUST, spec=VALIDATE, needs=("heartbeat",))
async def rejects_unknown_property(mcp: McpTarget, details: dict) -> None:
    """The tool rejects an unknown property 'priority'."""
    await check_rejected(mcp, "an unknown property 'priority'", priority="high")


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


# JSON types as the schema gives them (draft 2020-12: 2.0 is an integer, so it is not here), and
# the coercions lenient validators make (Pydantic's lax mode, Python's bool being an int).
WRONG_TYPES: tuple[tuple[str, dict[str, Any]], ...] = (
    ('progressPercent "50" (a string)', {"progressPercent": "50"}),
    ("progressPercent true", {"progressPercent": True}),
    ("stepIndex 2.5", {"stepIndex": 2.5, "stepCount": 5}),
    ('stepIndex "2" (a string)', {"stepIndex": "2", "stepCount": 5}),
    ("stepIndex true", {"stepIndex": True, "stepCount": 5}),
    ("stepCount true", {"stepIndex": 1, "stepCount": True}),
    ('stepCount "5" (a string)', {"stepIndex": 1, "stepCount": "5"}),
    ('status "ACTIVE" (the enum is case-sensitive)', {"status": "ACTIVE"}),
    ("status null", {"status": None}),
    ('acknowledgedInstructionIds "ins-1" (not an array)', {"acknowledgedInstructionIds": "ins-1"}),
    ("acknowledgedInstructionIds [1] (not strings)", {"acknowledgedInstructionIds": [1]}),
    ("sessionId 123", {"sessionId": 123}),
    ("idempotencyKey 123", {"idempotencyKey": 123}),
    ("currentStep 5", {"currentStep": 5}),
    ("instructionCursor 5", {"instructionCursor": 5}),
)


@case("heartbeat.args.wrong-types", level=Level.MUST, spec=VALIDATE, needs=("heartbeat",))
async def rejects_wrong_types(mcp: McpTarget, details: dict) -> None:
    """The tool rejects a value of the wrong JSON type in each field, coercible ones included."""
    accepted = Problems(
        lambda shown: Violation(
            f"{len(shown)} call(s) with a wrong JSON type were not rejected: "
            + "; ".join(p for _, p in shown),
            expected=REJECTED,
            observed=[p for _, p in shown],
        )
    )
    with accepted.kept(details):  # a later call's prerequisite failing keeps the calls already accepted
        for what, fields in WRONG_TYPES:
            try:
                await check_rejected(mcp, what, **fields)
            except Violation as violation:
                accepted.add(None, violation.message)
                details["accepted"] = [p for _, p in accepted.shown]
    accepted.judge()


BOUNDARIES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("progressPercent 0 (its minimum)", {"progressPercent": 0}),
    ("progressPercent 100 (its maximum)", {"progressPercent": 100}),
    ("stepIndex 1 of stepCount 1 (their minimum)", {"stepIndex": 1, "stepCount": 1}),
    ("stepIndex 1 of stepCount 1000 (its maximum)", {"stepIndex": 1, "stepCount": 1000}),
)


@case("heartbeat.args.boundaries-accepted", level=Level.MUST, spec=PURPOSE, needs=("heartbeat",))
async def accepts_the_bounds(mcp: McpTarget, details: dict) -> None:
    """Each bound of the schema is a valid value: heartbeats at the bounds succeed."""
    await all_accepted(
        mcp,
        details,
        BOUNDARIES,
        "valid heartbeat(s) at the schema's bounds were refused",
        "a result with isError false (the bounds are inclusive)",
    )


async def all_accepted(
    mcp: McpTarget,
    details: dict,
    calls: tuple[tuple[str, dict[str, Any]], ...],
    refused_said: str,
    expected: str,
) -> None:
    """Each call (what, its fields), on a fresh session, succeeds; the refused ones fail the case,
    "N {refused_said}: …", each with what its refusal said (a later refusal explained away keeps
    the calls already refused)."""
    refused = Problems(
        lambda shown: Violation(
            f"{len(shown)} {refused_said}: " + "; ".join(p for _, p in shown),
            expected=expected,
            observed=[p for _, p in shown],
        )
    )
    with refused.kept(details):
        for what, fields in calls:
            sid = new_session_id()
            reply = await mcp.heartbeat(sid, **fields)
            if not reply.succeeded:
                await mcp.explain_refusal(sid, reply, fields)
                refused.add(None, f"{what}: {reply.describe()}")
    refused.judge()


# Whole numbers written with a zero fraction, as float-typed JSON writers send them (Python float,
# serde f64, Go float64). The integer 1e0-style form is not here: the suite's JSON writer spells
# every float as Python does (1.0, 1000.0).
INTEGRAL_FLOATS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("stepIndex 3.0 of stepCount 10.0", {"stepIndex": 3.0, "stepCount": 10.0}),
    ("stepIndex 1.0 of stepCount 1000.0 (their bounds)", {"stepIndex": 1.0, "stepCount": 1000.0}),
)
DRAFT_04 = "json-schema.org/draft-04/"  # "integer": a number without a fraction or exponent part


@case("heartbeat.args.integral-numbers", level=Level.SHOULD, spec=SHARED, needs=("heartbeat",))
async def accepts_integral_numbers(mcp: McpTarget, details: dict) -> None:
    """stepIndex 3.0 and stepCount 10.0 (integers under JSON Schema 2020-12) are accepted as 3 and 10."""
    schema = (mcp.tool or {}).get("inputSchema")
    dialect = schema.get("$schema") if isinstance(schema, dict) else None
    if isinstance(dialect, str) and DRAFT_04 in dialect:
        raise NotApplicable(f"the published inputSchema is draft-04 ({dialect}), where 3.0 is not an integer")
    await all_accepted(
        mcp,
        details,
        INTEGRAL_FLOATS,
        "heartbeat(s) whose integers were written with a zero fraction were refused, although the published "
        "inputSchema's integer accepts them",
        "a result with isError false (JSON Schema 2020-12: integer matches any number with a zero fractional part)",
    )


@case("heartbeat.args.rejected-changes-nothing", level=Level.MUST, spec=VALIDATE, needs=("heartbeat",))
async def rejected_call_changes_nothing(mcp: McpTarget, details: dict) -> None:
    """A rejected heartbeat applies nothing: neither the acknowledgements nor the state it carries."""
    probe, unreadable = await calibrated(mcp)
    sid = new_session_id()
    kept, refused = probe.values(2) if probe is not None else (None, None)
    await mcp.ok_heartbeat(sid, **(probe.write(kept) if probe is not None else {"status": "active"}))
    # Two instructions delivered alike; the rejected call acknowledges one. Redelivery is a MAY, so
    # only the other one coming again shows what the server would have redelivered.
    tag = new_key()[-10:]
    acked, control = f"conformance rejected-ack {tag}", f"conformance rejected-control {tag}"
    ids, unread = await mcp.delivered_ids(sid, acked, control)
    if not ids and probe is None:
        raise MissingInput(
            "nothing shows whether a rejected call changed the session: "
            + unreadable
            + "; and no pending instruction to acknowledge"
            + unread
            + ("" if mcp.can_instruct else " (needs --instruct-cmd or --instruct-url)")
        )
    invalid: dict[str, Any] = {"acknowledgedInstructionIds": [*ids, 7]}  # 7: not a string
    if probe is not None:
        invalid |= probe.write(refused)
    reply = await mcp.heartbeat(sid, **invalid)
    if not reply.rejected:
        raise NotApplicable(
            "the server accepted acknowledgedInstructionIds with a number in it (heartbeat.args.wrong-types says "
            f"so): {reply.describe()}"
        )
    changed = Problems(
        lambda shown: Violation(
            "a heartbeat the server rejected was applied: " + "; ".join(p for _, p in shown),
            expected="a rejected call changes nothing",
            observed={"rejected_with": reply.describe(), "changed": [p for _, p in shown]},
        )
    )
    unseen = ""
    if ids:
        after, _ = await mcp.drain(sid)
        if has(after, control) and not has(after, acked):
            changed.add(None, "its acknowledgement removed the pending instruction")
        elif not has(after, control):
            unseen = (
                "the server did not deliver the unacknowledged control instruction again (a MAY), so whether "
                "the rejected call's acknowledgement was applied does not show"
            )
    if probe is not None:
        with changed.kept(details):  # the read refused keeps the acknowledgement already shown applied
            now = await probe.read(mcp, sid)
        if not same(now, kept):
            changed.add(None, f"its {probe.field} was recorded: {now!r}")
    changed.judge()
    if unseen and probe is None:
        raise MissingInput(f"{unseen}; and {unreadable}")
    if unseen:
        details["acknowledgement_unseen"] = unseen

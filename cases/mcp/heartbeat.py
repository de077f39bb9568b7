"""MCP `session_heartbeat`: the tool's advertisement, its arguments, its result and idempotency.

Spec: cases/revisions/sources/mcp-session-heartbeat-2025-06-18.txt, and MCP 2025-06-18's
rule that servers validate tool inputs. An invalid call must be rejected, by a JSON-RPC error
-32602 or by a result with ``isError: true`` (MCP 2025-06-18 allows both), never accepted.
"""

from __future__ import annotations

import json
from typing import Any

import anyio

from conformance.core.outcomes import MissingInput, NotApplicable, NotTestable, Unimplemented, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.probe import (
    ABSENT,
    calibrate,
    calibrated,
    execution_fields,
    leaves,
    same,
)
from conformance.targets.mcp.schema import compare_properties, compare_required, is_closed
from conformance.targets.mcp.target import (
    TOOL,
    McpTarget,
    ToolReply,
    has,
    new_key,
    new_session_id,
)

SOURCE = "mcp-session-heartbeat@2025-06-18"
MCP = "mcp-2025-06-18"

# "Report session status, progress, and the current step."
PURPOSE = requirement("mcp-session-heartbeat-2025-06-18", "purpose")
# "This schema is shared with tools/list."
SHARED = requirement("mcp-session-heartbeat-2025-06-18", "shared")
# "Use the tool name below in params.name."
NAME = requirement("mcp-session-heartbeat-2025-06-18", "name")
# "Servers MUST: Validate all tool inputs"
VALIDATE = requirement("mcp-session-heartbeat-2025-06-18", "validate")
# "Optional 1-based position of the current step. Send with stepCount."
STEP_PAIR = requirement("mcp-session-heartbeat-2025-06-18", "step-pair")
# "Inspect protocol errors and the tool result’s isError flag."
RESULT = requirement("mcp-session-heartbeat-2025-06-18", "result")
# "Preserve correlation IDs and unchanged mutation idempotency keys ac…"
RETRIES = requirement("mcp-session-heartbeat-2025-06-18", "retries")
# "Unique retry key"
KEY = requirement("mcp-session-heartbeat-2025-06-18", "key")
# "Session ID"
SESSION_ID = requirement("mcp-session-heartbeat-2025-06-18", "session-id")
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
    reply = await mcp.call({k: v for k, v in fields.items() if v is not _OMIT})
    if reply.rejected:
        # A server that takes no session the suite makes up refuses every call, valid or not.
        await mcp.require_made_up_sessions()
    expect_rejected(reply, what)


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
    sid = new_session_id()
    reply = await mcp.heartbeat(sid, **fields)
    if not reply.succeeded:
        await mcp.explain_refusal(sid, reply, fields)
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
    accepted = []
    for what, fields in WRONG_TYPES:
        try:
            await check_rejected(mcp, what, **fields)
        except Violation as violation:
            accepted.append(violation.message)
    if accepted:
        details["accepted"] = accepted
        raise Violation(
            f"{len(accepted)} call(s) with a wrong JSON type were not rejected: " + "; ".join(accepted),
            expected=REJECTED,
            observed=accepted,
        )


BOUNDARIES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("progressPercent 0 (its minimum)", {"progressPercent": 0}),
    ("progressPercent 100 (its maximum)", {"progressPercent": 100}),
    ("stepIndex 1 of stepCount 1 (their minimum)", {"stepIndex": 1, "stepCount": 1}),
    ("stepIndex 1 of stepCount 1000 (its maximum)", {"stepIndex": 1, "stepCount": 1000}),
)


@case("heartbeat.args.boundaries-accepted", level=Level.MUST, spec=PURPOSE, needs=("heartbeat",))
async def accepts_the_bounds(mcp: McpTarget, details: dict) -> None:
    """Each bound of the schema is a valid value: heartbeats at the bounds succeed."""
    refused = []
    for what, fields in BOUNDARIES:
        sid = new_session_id()
        reply = await mcp.heartbeat(sid, **fields)
        if not reply.succeeded:
            await mcp.explain_refusal(sid, reply, fields)
            refused.append(f"{what}: {reply.describe()}")
    if refused:
        raise Violation(
            f"{len(refused)} valid heartbeat(s) at the schema's bounds were refused: " + "; ".join(refused),
            expected="a result with isError false (the bounds are inclusive)",
            observed=refused,
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
    changed, unseen = [], ""
    if ids:
        after, _ = await mcp.drain(sid)
        if has(after, control) and not has(after, acked):
            changed.append("its acknowledgement removed the pending instruction")
        elif not has(after, control):
            unseen = (
                "the server did not deliver the unacknowledged control instruction again (a MAY), so whether "
                "the rejected call's acknowledgement was applied does not show"
            )
    if probe is not None:
        now = await probe.read(mcp, sid)
        if not same(now, kept):
            changed.append(f"its {probe.field} was recorded: {now!r}")
    if changed:
        raise Violation(
            "a heartbeat the server rejected was applied: " + "; ".join(changed),
            expected="a rejected call changes nothing",
            observed={"rejected_with": reply.describe(), "changed": changed},
        )
    if unseen and probe is None:
        raise MissingInput(f"{unseen}; and {unreadable}")
    if unseen:
        details["acknowledgement_unseen"] = unseen


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
# Whether a call was applied is read back through a calibrated probe (conformance.targets.mcp.probe):
# each case first proves, on a fresh session, that a heartbeat without a field shows that field's
# recorded value and that reading it changes nothing; where none does, the case is not testable.


@case("heartbeat.idempotency.retry-answered", level=Level.MUST, spec=RETRIES, needs=("heartbeat",))
async def retry_is_answered(mcp: McpTarget, details: dict) -> None:
    """A retry (same key, same arguments, its members in another order) after another heartbeat
    is answered with a result, not refused. What that result shows is the server's: the spec
    forbids executing a retry again (heartbeat.idempotency.not-applied-twice, concurrent-retry),
    not answering it with the session as it is now."""
    sid, key = new_session_id(), new_key()
    await mcp.ok_heartbeat(sid, status="active")
    first = await mcp.ok_heartbeat(sid, idempotencyKey=key, progressPercent=10)
    await mcp.ok_heartbeat(sid, progressPercent=55)
    # JSON objects are unordered: a server that compares the text of the arguments would take
    # the retry for another call under the same key.
    retry = await mcp.call({"progressPercent": 10, "idempotencyKey": key, "sessionId": sid})
    details.update(first=first.data, retry=retry.data if retry.succeeded else retry.describe())
    if not retry.succeeded:
        raise Violation(
            "a retry with the same idempotencyKey and arguments was answered with an error: a safe retry "
            "must get an answer, or the caller never learns what its call did",
            expected="a result with isError false",
            observed=retry.describe(),
        )
    details["answer"] = (
        "the first call's result" if same(first.data, retry.data) else "another result than the first call's"
    )


@case("heartbeat.idempotency.not-applied-twice", level=Level.MUST, spec=RETRIES, needs=("heartbeat",))
async def retry_is_not_applied_again(mcp: McpTarget, details: dict) -> None:
    """A retry does not apply its arguments again: a later change survives it."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    sid, key = new_session_id(), new_key()
    first, later = probe.values(2)
    await mcp.ok_heartbeat(sid, idempotencyKey=key, **probe.write(first))
    await mcp.ok_heartbeat(sid, **probe.write(later))
    await mcp.heartbeat(sid, idempotencyKey=key, **probe.write(first))
    after = await probe.read(mcp, sid)
    if not same(after, later):
        raise Violation(
            f"after {probe.field} {first!r} (key K), {later!r}, then a retry of K, the session's {probe.field} is "
            f"{after!r}: the retry was applied a second time",
            expected=f"{probe.field} {later!r} (the retry changes nothing)",
            observed=after,
        )


@case("heartbeat.idempotency.new-key-new-call", level=Level.MUST, spec=RETRIES, needs=("heartbeat",))
async def new_key_is_a_new_call(mcp: McpTarget, details: dict) -> None:
    """The same arguments under a new key are a new call, applied again."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    sid = new_session_id()
    first, later = probe.values(2)
    await mcp.ok_heartbeat(sid, **probe.write(first))
    await mcp.ok_heartbeat(sid, **probe.write(later))
    await mcp.ok_heartbeat(sid, **probe.write(first))  # the first call's arguments, a new key
    after = await probe.read(mcp, sid)
    if not same(after, first):
        raise Violation(
            f"after {probe.field} {first!r}, {later!r}, then {first!r} again under a new key, it is {after!r}: the "
            "server took the new call for a retry of the first (deduplicated by arguments, not by key)",
            expected=f"{probe.field} {first!r}",
            observed=after,
        )


@case("heartbeat.idempotency.key-variants", level=Level.MUST, spec=KEY, needs=("heartbeat",))
async def key_in_another_form_is_another_key(mcp: McpTarget, details: dict) -> None:
    """A key that differs from an earlier one only by case or surrounding spaces is a new key: its
    call is applied, not answered as a retry nor refused as one reused (unless the server refuses
    keys of that form on any call)."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    problems = []
    for form, variant in (("upper-case", str.upper), ("surrounded by spaces", lambda k: f" {k} ")):
        sid, key = new_session_id(), new_key()
        first, later = probe.values(2)
        await mcp.ok_heartbeat(sid, idempotencyKey=key, **probe.write(first))
        await mcp.ok_heartbeat(sid, **probe.write(later))
        reply = await mcp.heartbeat(sid, idempotencyKey=variant(key), **probe.write(first))
        if reply.rejected:
            # Refusing a key of that form is the server's rule, if it refuses one that collides with
            # nothing too: a fresh key in that form, on a new session.
            control = await mcp.heartbeat(
                new_session_id(), idempotencyKey=variant(new_key()), **probe.write(first)
            )
            if control.succeeded:
                problems.append(
                    f"{form} ({variant(key)!r}): refused ({reply.describe()}), while a fresh key in that form "
                    "is taken on a new session"
                )
            continue
        after = await probe.read(mcp, sid)
        if not same(after, first):
            problems.append(f"{form} ({variant(key)!r}): {probe.field} stayed {after!r}")
    if problems:
        raise Violation(
            "a key differing from an earlier key only in form was taken for it (answered as its retry, or "
            "refused as reused), not applied: " + "; ".join(problems),
            expected="another string is another key: its call applied",
            observed=problems,
        )


@case("heartbeat.idempotency.concurrent-retry", level=Level.MUST, spec=RETRIES, needs=("heartbeat",))
async def concurrent_retry_runs_once(mcp: McpTarget, details: dict) -> None:
    """Calls with one key in flight at once (two, then three) are executed once: every answer is that
    execution's (or a call is refused while the first runs)."""
    sid, key = new_session_id(), new_key()
    await mcp.ok_heartbeat(sid, status="active")
    first = await mcp.ok_heartbeat(sid, idempotencyKey=key, progressPercent=30)
    other = await mcp.ok_heartbeat(sid, progressPercent=30)
    replay = await mcp.heartbeat(sid, idempotencyKey=key, progressPercent=30)
    fields = sorted(execution_fields(first.data, other.data, replay.data)) if replay.succeeded else []
    details["execution_fields"] = fields
    if not fields:
        raise MissingInput(
            "two executions cannot be told apart by their results: no field differs between two calls with the "
            "same arguments under different keys and agrees between a call and its retry"
        )
    for burst in (2, 3):
        key = new_key()
        replies: list[ToolReply] = []

        async def send(key: str = key, replies: list[ToolReply] = replies) -> None:
            replies.append(await mcp.heartbeat(sid, idempotencyKey=key, progressPercent=30))

        async with anyio.create_task_group() as tg:
            for _ in range(burst):
                tg.start_soon(send)
        answered = [r for r in replies if r.succeeded]
        details[f"answers to {burst}"] = [r.data if r.succeeded else r.describe() for r in replies]
        if not answered:
            raise NotTestable(f"all {burst} calls were answered with errors: {replies[0].describe()}")
        first = leaves(answered[0].data)
        for other in answered[1:]:  # one answered alone: the others were refused while it ran
            b = leaves(other.data)
            differ = [p for p in fields if not same(first.get(p, ABSENT), b.get(p, ABSENT))]
            if differ:
                raise Violation(
                    f"{burst} calls with one idempotencyKey, in flight at once, were executed more than once: their "
                    f"answers differ at {', '.join(differ)} (which tells one execution from another)",
                    expected="one execution: every answer alike, or the others refused while the first runs",
                    observed={p: (first.get(p), b.get(p)) for p in differ},
                )


@case("heartbeat.idempotency.key-across-sessions", level=Level.MUST, spec=KEY, needs=("heartbeat",))
async def key_reused_in_another_session(mcp: McpTarget, details: dict) -> None:
    """A key used in one session, then in another (by the same caller, and by caller B where the run
    has one), is not answered from the first session's result: the second call is applied to its own
    session, or refused (keys unique everywhere), and never shows the first session."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    key = new_key()
    first_sid = new_session_id()
    before, written = probe.values(2)
    await mcp.ok_heartbeat(first_sid, idempotencyKey=key, **probe.write(written))
    problems = []

    async def judge(who: str, caller: McpTarget) -> None:
        sid = new_session_id()
        await caller.ok_heartbeat(sid, **probe.write(before))
        reply = await caller.heartbeat(sid, idempotencyKey=key, **probe.write(written))
        shown = first_sid in json.dumps(reply.reply.result if reply.reply.ok else reply.reply.error)
        if shown:
            problems.append(f"{who}: the answer names the first session {first_sid!r} ({reply.describe()})")
        if reply.rejected:
            return  # the key is taken everywhere: refused, which applies nothing
        now = await probe.read(caller, sid)
        if not same(now, written):
            problems.append(
                f"{who}: answered ({reply.describe()}) but not applied: its session's {probe.field} stayed {now!r}"
            )

    await judge("the same caller, another session", mcp)
    if mcp.harness.config.transport == "http" and mcp.options.other_headers is not None:
        async with mcp.other_caller() as other:
            await judge("caller B, a session of its own", other)
    if problems:
        raise Violation(
            "a key used in one session, reused in another, was answered from the first session's result: "
            + "; ".join(problems),
            expected="the call applied to its own session, or refused; never the other session's result",
            observed=problems,
        )


@case(
    "heartbeat.idempotency.key-reuse-different-args", level=Level.SHOULD, spec=RETRIES, needs=("heartbeat",)
)
async def key_reuse_with_other_arguments(mcp: McpTarget, details: dict) -> None:
    """The same key with different arguments is reported as an error, not silently accepted,
    whichever call came first (a comparison that holds one way only fails the second)."""
    for first, second in ((10, 90), (90, 10)):
        sid, key = new_session_id(), new_key()
        await mcp.ok_heartbeat(sid, idempotencyKey=key, status="active", progressPercent=first)
        reply = await mcp.heartbeat(sid, idempotencyKey=key, status="blocked", progressPercent=second)
        if not reply.rejected:
            raise Violation(
                f"the same idempotencyKey with different arguments (progressPercent {first}, then {second}) "
                "was accepted silently",
                expected="an error: the key was already used with other arguments",
                observed=reply.describe(),
            )


# -- sessions --------------------------------------------------------------------------------------


def full_width(text: str) -> str:
    """ASCII as its full-width compatibility form (NFKC maps it back)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


SESSION_ID_FORMS: tuple[tuple[str, Any], ...] = (
    ("upper-case", str.upper),
    ("surrounded by spaces", lambda s: f" {s} "),
    ("full-width (NFKC-equal)", full_width),
)


@case("heartbeat.session.id-variants", level=Level.MUST, spec=SESSION_ID, needs=("heartbeat",))
async def session_id_in_another_form_is_another_session(mcp: McpTarget, details: dict) -> None:
    """A session id in another form (upper-case, surrounded by spaces, full-width) names another
    session: a heartbeat for it shows none of the first session's instructions or state, and is
    not refused for it (refusing every new id of that form is the server's rule)."""
    probe, unreadable = await calibrated(mcp)
    sid = new_session_id()
    mark = probe.values(2)[1] if probe is not None else None
    await mcp.ok_heartbeat(sid, **(probe.write(mark) if probe is not None else {"status": "active"}))
    text = f"conformance id-variant {new_key()[-10:]}" if mcp.can_instruct else None
    if text is not None:
        await mcp.instruct(sid, text)
        try:
            delivery = await mcp.await_delivery(sid, [text])
            again, _ = await mcp.drain(sid)
            if delivery.missing or not has(again, text):
                text = None  # not delivered again (redelivery is a MAY): a heartbeat shows it nowhere
        except MissingInput:  # the state may still tell
            text = None
    if text is None and probe is None:
        raise MissingInput(
            "nothing of a session shows in another's results to look for: "
            + unreadable
            + "; and no instruction that comes again until acknowledged"
            + ("" if mcp.can_instruct else " (needs --instruct-cmd or --instruct-url)")
        )
    seen = []
    for form, variant in SESSION_ID_FORMS:
        reply = await mcp.heartbeat(variant(sid))
        if reply.rejected:
            # Refusing an id of that form (malformed, or a session the caller may not open) is the
            # server's rule if it refuses a new id in that form too; else the id was taken for sid's.
            control = await mcp.heartbeat(variant(new_session_id()))
            if control.succeeded:
                seen.append(
                    f"{form} {variant(sid)!r}: refused ({reply.describe()}), while a new id in that form is taken"
                )
            continue
        shown = []
        if text is not None and has(_instructions_or_none(mcp, reply), text):
            shown.append("its pending instruction")
        if probe is not None and same(probe.value_in(reply.data), mark):
            shown.append(f"its {probe.field} {mark!r}")
        if shown:
            seen.append(f"{form} {variant(sid)!r}: " + " and ".join(shown))
    if seen:
        raise Violation(
            f"a session id in another form was taken for session {sid!r}: " + "; ".join(seen),
            expected="another string is another session: none of the first session's instructions or state",
            observed=seen,
        )
    if text is not None and probe is None:
        after, _ = await mcp.drain(sid)
        if not has(after, text):
            raise MissingInput(
                "the session's instruction stopped coming again while the other forms were asked (a MAY), so "
                f"their results not showing it proves nothing; and {unreadable}"
            )


def _instructions_or_none(mcp: McpTarget, reply: ToolReply) -> list[dict[str, Any]]:
    try:
        return mcp.instructions(reply)
    except (MissingInput, NotTestable):
        return []

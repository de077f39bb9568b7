"""MCP `session_heartbeat`: delivery of human instructions, and access by another caller.

The tool's core promise: pending human instructions arrive in heartbeat results, come again
until acknowledged, never after, and paging with ``instructionCursor`` loses and duplicates
nothing. The suite enqueues instructions through the operator hook the user gives
(``--instruct-cmd`` / ``--instruct-url``); without one these cases are not testable.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from conformance.core.outcomes import MissingInput, NotApplicable, NotTestable, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.probe import calibrated, same
from conformance.targets.mcp.queue import RULES
from conformance.targets.mcp.target import McpTarget, ToolReply, carries, new_key, new_session_id

SOURCE = "mcp-session-heartbeat@2025-06-18"
# "Pending human instructions are delivered automatically; unacknowled…"
DELIVERY = requirement("mcp-session-heartbeat-2025-06-18", "delivery")
# "Instruction IDs the agent has received and processed."
ACK = requirement("mcp-session-heartbeat-2025-06-18", "ack")
# "Opaque continuation cursor returned with the previous pending-instr…"
CURSOR = requirement("mcp-session-heartbeat-2025-06-18", "cursor")
# "The server also verifies current scopes and resource-level access b…"
ACCESS = requirement("mcp-session-heartbeat-2025-06-18", "access")


def marker(label: str) -> str:
    return f"conformance {label} {uuid.uuid4().hex[:10]}"


async def enqueue(mcp: McpTarget, sid: str, *texts: str) -> None:
    for text in texts:
        await mcp.instruct(sid, text)


def texts_of(items: list[dict[str, Any]], texts: list[str]) -> list[str]:
    """Which of these texts each item carries, in delivery order (the spec does not name the field)."""
    return [t for i in items for t in texts if carries(i, t)]


def has(items: list[dict[str, Any]], text: str) -> bool:
    return any(carries(i, text) for i in items)


def ids_for(items: list[dict[str, Any]], texts: list[str]) -> list[str]:
    return [i["id"] for i in items if any(carries(i, t) for t in texts)]


async def started_session(mcp: McpTarget) -> str:
    """A session that exists before instructions are enqueued for it (its first heartbeat)."""
    sid = new_session_id()
    await mcp.ok_heartbeat(sid, status="active")
    return sid


@case("heartbeat.instructions.delivered", level=Level.MUST, spec=DELIVERY, needs=("heartbeat",))
async def pending_instruction_is_delivered(mcp: McpTarget, details: dict) -> None:
    """An instruction enqueued by the operator arrives in the next heartbeat's result (with an id)."""
    sid = await started_session(mcp)
    text = marker("delivery")
    await enqueue(mcp, sid, text)
    items, _ = await mcp.drain(sid)
    details["delivered"] = items[:20]
    if not has(items, text):
        raise Violation(
            "an instruction enqueued for the session did not arrive in its next heartbeat result",
            expected=f"an instruction with text {text!r}",
            observed=items[:20],
        )


@case("heartbeat.instructions.unacked-redelivered", level=Level.MUST, spec=DELIVERY, needs=("heartbeat",))
async def unacknowledged_comes_again(mcp: McpTarget, details: dict) -> None:
    """An instruction not acknowledged is still pending: it comes again on the next heartbeats."""
    sid = await started_session(mcp)
    text = marker("redelivery")
    await enqueue(mcp, sid, text)
    for attempt in range(1, 4):
        items, _ = await mcp.drain(sid)
        if not has(items, text):
            raise Violation(
                f"an instruction that was never acknowledged was missing from heartbeat {attempt} after it was enqueued "
                "(lost before the agent acknowledged it)",
                expected=f"the instruction {text!r} on every heartbeat until acknowledged",
                observed=items[:20],
            )


@case("heartbeat.instructions.acked-never-again", level=Level.MUST, spec=ACK, needs=("heartbeat",))
async def acknowledged_never_again(mcp: McpTarget, details: dict) -> None:
    """Once its id is sent in acknowledgedInstructionIds, an instruction never comes again."""
    sid = await started_session(mcp)
    acked, kept = marker("acked"), marker("kept")
    await enqueue(mcp, sid, acked, kept)
    items, _ = await mcp.drain(sid)
    ack_ids = ids_for(items, [acked])
    if not ack_ids:
        raise Violation(
            "the enqueued instruction was not delivered, so it could not be acknowledged", observed=items
        )
    await mcp.ok_heartbeat(sid, acknowledgedInstructionIds=ack_ids)
    for attempt in range(1, 4):
        again, _ = await mcp.drain(sid)
        if has(again, acked) or set(ack_ids) & {i["id"] for i in again}:
            raise Violation(
                f"an acknowledged instruction came again on heartbeat {attempt} after its acknowledgement",
                expected=f"never again: {ack_ids}",
                observed=again[:20],
            )
        if not has(again, kept):
            raise Violation(
                "acknowledging one instruction also removed another that was not acknowledged",
                expected=f"{kept!r} still pending",
                observed=again[:20],
            )


@case("heartbeat.instructions.paging", level=Level.MUST, spec=CURSOR, needs=("heartbeat",))
async def paging_loses_and_duplicates_nothing(mcp: McpTarget, details: dict) -> None:
    """Following instructionCursor page by page yields every pending instruction exactly once."""
    sid = await started_session(mcp)
    texts = [marker(f"page-{n}") for n in range(7)]
    await enqueue(mcp, sid, *texts)
    items, replies = await mcp.drain(sid)
    ours = texts_of(items, texts)
    details.update(pages=len(replies), delivered=ours[:20])
    lost = [t for t in texts if t not in ours]
    doubled = sorted({t for t in ours if ours.count(t) > 1})
    ids = [i["id"] for i in items]
    doubled_ids = sorted({i for i in ids if ids.count(i) > 1})
    if lost or doubled or doubled_ids:
        raise Violation(
            f"paging through {len(replies)} page(s): "
            + "; ".join(
                part
                for part in (
                    f"{len(lost)} instruction(s) lost" if lost else "",
                    f"{len(doubled)} delivered twice" if doubled else "",
                    f"ids repeated: {doubled_ids[:5]}" if doubled_ids else "",
                )
                if part
            ),
            expected=f"each of the {len(texts)} pending instructions exactly once",
            observed=ours[:20],
        )
    if len(replies) == 1:
        raise NotApplicable(
            f"the server delivered all {len(texts)} pending instructions in one result, with no cursor: paging did "
            "not arise"
        )


@case("heartbeat.instructions.per-session", level=Level.MUST, spec=DELIVERY, needs=("heartbeat",))
async def instructions_stay_in_their_session(mcp: McpTarget, details: dict) -> None:
    """An instruction enqueued for one session never appears in another session's results."""
    mine, other = await started_session(mcp), await started_session(mcp)
    text = marker("elsewhere")
    await enqueue(mcp, other, text)
    items, _ = await mcp.drain(mine)
    if has(items, text):
        raise Violation(
            "an instruction enqueued for another session was delivered to this one",
            expected="only this session's instructions",
            observed=items[:20],
        )


@case("heartbeat.instructions.ack-other-session", level=Level.MUST, spec=ACK, needs=("heartbeat",))
async def acknowledgement_stays_in_its_session(mcp: McpTarget, details: dict) -> None:
    """Another session's instruction ids acknowledged in this session's heartbeat remove nothing
    from the other session."""
    mine, other = await started_session(mcp), await started_session(mcp)
    text = marker("acked-elsewhere")
    await enqueue(mcp, other, text)
    items, _ = await mcp.drain(other)
    again, _ = await mcp.drain(other)  # the control: unacknowledged, it comes again
    ids = ids_for(items, [text])
    if not ids or not has(again, text):
        raise NotTestable(
            "the instruction was not delivered, or not again before it was acknowledged (see "
            "heartbeat.instructions.delivered and heartbeat.instructions.unacked-redelivered)",
            observed=again[:20],
        )
    await mcp.heartbeat(mine, acknowledgedInstructionIds=ids)  # refusing ids it never sent is fine too
    after, _ = await mcp.drain(other)
    if not has(after, text):
        raise Violation(
            "acknowledging another session's instruction id in this session's heartbeat removed it from that "
            "session (acknowledgements applied by id, whatever the session)",
            expected=f"{text!r} still pending in its own session",
            observed=after[:20],
        )


@case("heartbeat.instructions.cursor-other-session", level=Level.MUST, spec=CURSOR, needs=("heartbeat",))
async def cursor_stays_in_its_session(mcp: McpTarget, details: dict) -> None:
    """A cursor from one session's page, sent in another session's heartbeat, delivers none of the
    first session's instructions."""
    mine, other = await started_session(mcp), await started_session(mcp)
    texts = [marker(f"cursor-{n}") for n in range(3)]
    await enqueue(mcp, other, *texts)
    first = await mcp.ok_heartbeat(other)
    items = mcp.instructions(first)
    if not texts_of(items, texts):
        raise NotTestable("none of the session's pending instructions was delivered", observed=items[:20])
    cursor = mcp.cursor(first)
    if cursor is None:
        raise NotApplicable(
            f"the server delivered {len(items)} instruction(s) of 3 pending with no cursor: no page to continue"
        )
    reply = await mcp.heartbeat(mine, instructionCursor=cursor)
    if reply.rejected:
        return  # a cursor of another session refused: fine
    got = texts_of(mcp.instructions(reply), texts)
    if got:
        raise Violation(
            f"another session's cursor, sent in this session's heartbeat, delivered {len(got)} of that session's "
            "instructions (the page continued the cursor's session)",
            expected="this session's instructions only, or an error for a cursor it never returned",
            observed=got,
        )


# -- access ----------------------------------------------------------------------------------------


@case("heartbeat.access.other-caller-rejected", level=Level.MUST, spec=ACCESS, needs=("heartbeat",))
async def other_caller_learns_nothing(mcp: McpTarget, details: dict) -> None:
    """Caller B's heartbeat for caller A's session is an error that reveals nothing of it, and
    the other way round (an ownership check that holds one way only, say one that compares
    identities by order, fails the second)."""
    mcp.require_other_caller()
    sid = new_session_id()
    step = marker("secret-step")
    await mcp.ok_heartbeat(sid, status="waiting", currentStep=step)
    secret = marker("secret-instruction") if mcp.can_instruct else None
    if secret is not None:
        await enqueue(mcp, sid, secret)
    async with mcp.other_caller() as other:
        reply = await other.heartbeat(sid)
        theirs, their_step = new_session_id(), marker("secret-step")
        await other.ok_heartbeat(theirs, status="waiting", currentStep=their_step)
        back = await mcp.heartbeat(theirs)
    details["reply_to_b"] = reply.result if reply.reply.ok else reply.describe()
    details["reply_to_a"] = back.result if back.reply.ok else back.describe()
    for asker, owner, answer, secrets in (("B", "A", reply, (step, secret)), ("A", "B", back, (their_step,))):
        leaked = [s for s in secrets if s is not None and s in _all_text(answer)]
        if not answer.rejected:
            raise Violation(
                f"caller {asker}'s heartbeat for caller {owner}'s session was accepted",
                expected="an error (no access to another caller's session)",
                observed=answer.describe(),
            )
        if leaked:
            raise Violation(
                f"the error caller {asker} got reveals caller {owner}'s session: "
                + ", ".join(repr(s) for s in leaked),
                expected="an error that says nothing of the session",
                observed=answer.describe(),
            )


@case("heartbeat.access.other-caller-no-change", level=Level.MUST, spec=ACCESS, needs=("heartbeat",))
async def other_caller_changes_nothing(mcp: McpTarget, details: dict) -> None:
    """Caller B's heartbeat for A's session (state, acknowledgements) changes nothing of it."""
    mcp.require_other_caller()
    probe, unreadable = await calibrated(mcp)
    sid = new_session_id()
    kept, written = probe.values(2) if probe is not None else (None, None)
    await mcp.ok_heartbeat(sid, **(probe.write(kept) if probe is not None else {"status": "waiting"}))
    text, ids = marker("kept-from-b"), []
    if mcp.can_instruct:
        await enqueue(mcp, sid, text)
        await mcp.drain(sid)
        items, _ = await mcp.drain(sid)  # the control: without B, the unacknowledged instruction comes again
        ids = ids_for(items, [text])
    if not ids and probe is None:
        raise MissingInput(
            "nothing shows whether caller B changed caller A's session: "
            + unreadable
            + "; and no instruction of A's that comes again until acknowledged"
            + ("" if mcp.can_instruct else " (needs --instruct-cmd or --instruct-url)")
        )
    changes: dict[str, Any] = {"acknowledgedInstructionIds": ids}
    if probe is not None:
        changes |= probe.write(written)
    async with mcp.other_caller() as other:
        await other.heartbeat(sid, **changes)
    problems = []
    if ids:
        after, _ = await mcp.drain(sid)
        if not has(after, text):
            problems.append("caller B's acknowledgement removed caller A's pending instruction")
    if probe is not None:
        now = await probe.read(mcp, sid)
        if not same(now, kept):
            problems.append(f"caller B's heartbeat changed the session's {probe.field} to {now!r}")
    if problems:
        raise Violation(
            "; ".join(problems),
            expected="A's session as A left it: its state as A wrote it, its instruction still pending",
            observed=problems,
        )


@case("heartbeat.access.other-caller-replay", level=Level.MUST, spec=ACCESS, needs=("heartbeat",))
async def other_caller_replay_is_rejected(mcp: McpTarget, details: dict) -> None:
    """Caller B sending caller A's exact call (same key, same arguments) is rejected, not answered
    with A's result."""
    mcp.require_other_caller()
    sid = new_session_id()
    step = marker("secret-step")
    await mcp.ok_heartbeat(sid, status="waiting", currentStep=step)
    secret = marker("secret-instruction") if mcp.can_instruct else None
    if secret is not None:
        await enqueue(mcp, sid, secret)
    call = {"idempotencyKey": new_key(), "progressPercent": 20}
    await mcp.ok_heartbeat(sid, **call)  # its result may show A's step and instruction: B sends neither
    async with mcp.other_caller() as other:
        reply = await other.heartbeat(sid, **call)
    details["reply_to_b"] = reply.result if reply.reply.ok else reply.describe()
    leaked = [s for s in (step, secret) if s is not None and s in _all_text(reply)]
    if not reply.rejected or leaked:
        raise Violation(
            "caller B's replay of caller A's call (same session, key and arguments) was "
            + ("answered" if not reply.rejected else "rejected")
            + (" with caller A's " + " and ".join(repr(s) for s in leaked) if leaked else ""),
            expected="an error (no access to another caller's session) that says nothing of it",
            observed=reply.describe(),
        )


def _all_text(reply: ToolReply) -> str:
    body = reply.reply.result if reply.reply.ok else reply.reply.error
    return json.dumps(body, ensure_ascii=False)


# -- model-based sequences -------------------------------------------------------------------------

SEQUENCE_ID = "heartbeat.instructions.model-based"


@case(SEQUENCE_ID, level=Level.MUST, spec=DELIVERY, needs=("heartbeat",), rules=tuple(RULES))
async def queue_model_sequences(mcp: McpTarget, details: dict) -> None:
    """Random enqueues, heartbeats, acknowledgements and pages never contradict the queue model."""
    from pathlib import Path

    import anyio.to_thread

    from conformance.core.profiles import PROFILES
    from conformance.replay.files import numbered_steps, write_replay
    from conformance.targets.mcp.queue import run_queue_sequences

    mcp.require_instruct()
    config = mcp.harness.config
    run = await anyio.to_thread.run_sync(
        lambda: run_queue_sequences(mcp, PROFILES[config.profile], seed_value=config.seed)
    )
    details.update(profile=run.profile, seed=run.seed, examples=run.examples)
    if run.failure is None:
        return
    steps = [s.to_json() for s in run.steps]
    details["steps"] = steps
    details["sequence"] = numbered_steps(run.steps)  # type: ignore[arg-type]
    replay = ""
    if config.report_dir:
        path = write_replay(
            Path(config.report_dir) / "replays",
            case_id=SEQUENCE_ID,
            command=config.command,
            cwd=config.cwd,
            agent_info=mcp.init_result.get("serverInfo"),
            spec_revision="mcp-session-heartbeat-2025-06-18",
            seed=run.seed,
            profile=run.profile,
            failure=run.failure,
            steps=steps,
            target="mcp",
            extra_agent=mcp.replay_record(config),
        )
        details["replay_file"] = str(path)
        replay = f"; replay: session-status-conformance replay {path}"
    raise Violation(
        f"{run.failure} (minimal sequence of {len(run.steps)} steps, seed {run.seed}{replay})",
        expected="every heartbeat result allowed by the queue model; the rule broken: "
        + RULES.get(run.rule or "", "none named"),
        observed="\n".join(details["sequence"]),
        rule=run.rule if run.rule in RULES else None,
    )

"""MCP `session_heartbeat`: access by another caller, who learns and changes nothing.

Spec: cases/revisions/sources/mcp-session-heartbeat-2025-06-18.txt ("The server also verifies
current scopes and resource-level access before returning data or changing a record"). Caller B is
the run's --other-header over Streamable HTTP; over stdio there is one caller, and these cases are
not testable.
"""

from __future__ import annotations

import json
from typing import Any

from conformance.cases.mcp.instructions import enqueue, marker

from conformance.core.outcomes import MissingInput, Problems, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.probe import calibrated, same
from conformance.targets.mcp.target import McpTarget, ToolReply, has, new_key, new_session_id

# "The server also verifies current scopes and resource-level access b…"
ACCESS = requirement("mcp-session-heartbeat-2025-06-18", "access")


async def _session_with_secrets(mcp: McpTarget) -> tuple[str, str, str | None]:
    """A session of caller A's with a step and, where the operator hook can, an instruction that
    only A may learn: its id, the step, the instruction (None without the hook)."""
    sid = new_session_id()
    step = marker("secret-step")
    await mcp.ok_heartbeat(sid, status="waiting", currentStep=step)
    secret = marker("secret-instruction") if mcp.can_instruct else None
    if secret is not None:
        await enqueue(mcp, sid, secret)
    return sid, step, secret


@case("heartbeat.access.other-caller-rejected", level=Level.MUST, spec=ACCESS, needs=("heartbeat",))
async def other_caller_learns_nothing(mcp: McpTarget, details: dict) -> None:
    """Caller B's heartbeat for the id of caller A's session reveals nothing of it: refused with an
    error that says nothing of it, or answered as a session of B's own (a server that scopes ids per
    caller) with nothing of A's in it; and the other way round (an ownership check that holds one
    way only, say one that compares identities by order, fails the second). An answer is judged
    only where the owner's own answer shows what it looks for: else it could not show a leak."""
    mcp.require_other_caller()
    sid, step, secret = await _session_with_secrets(mcp)
    async with mcp.other_caller() as other:
        reply = await other.heartbeat(sid)
        theirs, their_step = new_session_id(), marker("secret-step")
        await other.ok_heartbeat(theirs, status="waiting", currentStep=their_step)
        back = await mcp.heartbeat(theirs)
        # What each owner's own heartbeat shows of its session: what a leak would have shown.
        own_a, own_b = await mcp.heartbeat(sid), await other.heartbeat(theirs)
    details["reply_to_b"] = reply.result if reply.reply.ok else reply.describe()
    details["reply_to_a"] = back.result if back.reply.ok else back.describe()
    unseen = []
    for asker, owner, answer, own, secrets in (
        ("B", "A", reply, own_a, (step, secret)),
        ("A", "B", back, own_b, (their_step,)),
    ):
        leaked = [s for s in secrets if s is not None and s in _all_text(answer)]
        if leaked:
            raise Violation(
                f"caller {asker}'s heartbeat for caller {owner}'s session was "
                + ("refused with an error that" if answer.rejected else "answered with a result that")
                + f" reveals caller {owner}'s session: "
                + ", ".join(repr(s) for s in leaked),
                expected="nothing of the other caller's session: an error that says nothing of it, or an answer "
                "about a session of the asker's own",
                observed=answer.describe(),
            )
        if answer.rejected:
            continue
        if not any(s is not None and s in _all_text(own) for s in secrets):
            unseen.append(
                f"caller {asker}'s heartbeat for caller {owner}'s session id was answered, and caller {owner}'s own "
                "answer shows neither its step nor its instruction, so an answer from that session would show "
                "nothing either"
            )
    if unseen:
        raise MissingInput("; ".join(unseen))


@case("heartbeat.access.other-caller-no-change", level=Level.MUST, spec=ACCESS, needs=("heartbeat",))
async def other_caller_changes_nothing(mcp: McpTarget, details: dict) -> None:
    """Caller B's heartbeat for A's session (state, acknowledgements) changes nothing of it."""
    mcp.require_other_caller()
    probe, unreadable = await calibrated(mcp)
    sid = new_session_id()
    kept, written = probe.values(2) if probe is not None else (None, None)
    await mcp.ok_heartbeat(sid, **(probe.write(kept) if probe is not None else {"status": "waiting"}))
    # Two instructions delivered alike; B acknowledges one. Redelivery is a MAY: only the other
    # coming again shows what the server would have redelivered.
    text, control = marker("kept-from-b"), marker("control-from-b")
    ids, unread = await mcp.delivered_ids(sid, text, control)
    if not ids and probe is None:
        raise MissingInput(
            "nothing shows whether caller B changed caller A's session: "
            + unreadable
            + "; and no instruction of A's delivered to acknowledge"
            + unread
            + ("" if mcp.can_instruct else " (needs --instruct-cmd or --instruct-url)")
        )
    changes: dict[str, Any] = {"acknowledgedInstructionIds": ids}
    if probe is not None:
        changes |= probe.write(written)
    async with mcp.other_caller() as other:
        await other.heartbeat(sid, **changes)
    problems = Problems.listed(
        "A's session as A left it: its state as A wrote it, its instruction still pending",
    )
    unseen = ""
    if ids:
        after, _ = await mcp.drain(sid)
        if has(after, control) and not has(after, text):
            problems.add(None, "caller B's acknowledgement removed caller A's pending instruction")
        elif not has(after, control):
            unseen = (
                "the server did not deliver A's unacknowledged control instruction again (a MAY), so whether "
                "B's acknowledgement removed its twin does not show"
            )
    if probe is not None:
        with problems.kept(details):  # the read refused keeps the instruction already shown removed
            now = await probe.read(mcp, sid)
        if not same(now, kept):
            problems.add(None, f"caller B's heartbeat changed the session's {probe.field} to {now!r}")
    problems.judge()
    if unseen and probe is None:
        raise MissingInput(f"{unseen}; and {unreadable}")


@case("heartbeat.access.other-caller-replay", level=Level.MUST, spec=ACCESS, needs=("heartbeat",))
async def other_caller_replay_is_rejected(mcp: McpTarget, details: dict) -> None:
    """Caller B sending caller A's exact call (same session id, key and arguments) is not answered
    with A's result: refused, or executed as a call of B's own session (ids scoped per caller)."""
    mcp.require_other_caller()
    sid, step, secret = await _session_with_secrets(mcp)
    call = {"idempotencyKey": new_key(), "progressPercent": 20}
    own = await mcp.ok_heartbeat(sid, **call)  # its result may show A's step and instruction: B sends neither
    async with mcp.other_caller() as other:
        reply = await other.heartbeat(sid, **call)
    details["reply_to_b"] = reply.result if reply.reply.ok else reply.describe()
    leaked = [s for s in (step, secret) if s is not None and s in _all_text(reply)]
    if leaked:
        raise Violation(
            "caller B's replay of caller A's call (same session, key and arguments) was "
            + ("rejected" if reply.rejected else "answered")
            + " with caller A's "
            + " and ".join(repr(s) for s in leaked),
            expected="an error that says nothing of A's session, or an answer about a session of B's own",
            observed=reply.describe(),
        )
    if not reply.rejected and not any(s is not None and s in _all_text(own) for s in (step, secret)):
        raise MissingInput(
            "caller B's replay of caller A's call was answered, and caller A's own answer to that call shows neither "
            "its step nor its instruction, so whether B got A's result does not show"
        )


def _all_text(reply: ToolReply) -> str:
    body = reply.reply.result if reply.reply.ok else reply.reply.error
    return json.dumps(body, ensure_ascii=False)

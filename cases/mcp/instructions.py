"""MCP `session_heartbeat`: delivery of human instructions.

The tool's core promise: pending human instructions arrive in heartbeat results, may come again
until acknowledged (a MAY: at once, later or never), never after, and paging with
``instructionCursor`` loses and duplicates nothing. The suite enqueues instructions through the
operator hook the user gives (``--instruct-cmd`` / ``--instruct-url``); without one these cases
are not testable. The hook returning is not proof an instruction is pending yet, so a case asks
again for up to --delivery-wait before it calls one lost; and since a delivered instruction need
not come again, what a case learns from a redelivery it learns from a twin delivered alike.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable

import anyio

from conformance.core.outcomes import MissingInput, NotApplicable, NotTestable, Problems, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.probe import calibrate, calibrate_all, read_untouched, same
from conformance.targets.mcp.queue import RULES
from conformance.targets.mcp.target import (
    Delivery,
    Instruction,
    McpTarget,
    NoInstructionList,
    ToolReply,
    carries,
    has,
    ids_for,
    new_key,
    new_session_id,
    raise_if_elsewhere,
    unfollowed_message,
)

# "Pending human instructions are delivered automatically; unacknowled…"
DELIVERY = requirement("mcp-session-heartbeat-2025-06-18", "delivery")
# "Instruction IDs the agent has received and processed."
ACK = requirement("mcp-session-heartbeat-2025-06-18", "ack")
# "Opaque continuation cursor returned with the previous pending-instr…"
CURSOR = requirement("mcp-session-heartbeat-2025-06-18", "cursor")
# "Report session status, progress, and the current step."
PURPOSE = requirement("mcp-session-heartbeat-2025-06-18", "purpose")


def marker(label: str) -> str:
    return f"conformance {label} {uuid.uuid4().hex[:10]}"


async def enqueue(mcp: McpTarget, sid: str, *texts: str) -> None:
    for text in texts:
        await mcp.instruct(sid, text)


def texts_of(items: list[Instruction], texts: list[str]) -> list[str]:
    """Which of these texts each item carries, in delivery order (the spec does not name the field)."""
    return [t for i in items for t in texts if carries(i, t)]


async def started_session(mcp: McpTarget) -> str:
    """A session that exists before instructions are enqueued for it (its first heartbeat)."""
    sid = new_session_id()
    await mcp.ok_heartbeat(sid, status="active")
    return sid


async def not_delivered(mcp: McpTarget, delivery: Delivery, what: str) -> NotTestable:
    """A delivery a case needs did not happen within the wait: a failure, which
    heartbeat.instructions.delivered names (or not testable, if a cursor went unfollowed)."""
    await delivery.explain_missing(mcp)
    return NotTestable(
        f"{what} did not arrive within {mcp.delivery_wait:g} s of being enqueued (see "
        "heartbeat.instructions.delivered)",
        observed=delivery.items[:20],
    )


@case("heartbeat.instructions.delivered", level=Level.MUST, spec=DELIVERY, needs=("heartbeat",))
async def pending_instruction_is_delivered(mcp: McpTarget, details: dict) -> None:
    """An instruction enqueued by the operator arrives in the session's heartbeat results (with an
    id), within --delivery-wait: the operator hook returning is not proof it is pending yet."""
    sid = await started_session(mcp)
    text = marker("delivery")
    await enqueue(mcp, sid, text)
    delivery = await mcp.await_delivery(sid, [text])
    details.update(
        delivered=delivery.first_with(text)[:20], waited=round(delivery.arrived.get(text, delivery.waited), 3)
    )
    if delivery.missing:
        await delivery.explain_missing(mcp)
        raise Violation(
            f"an instruction enqueued for the session did not arrive in its heartbeat results within "
            f"{mcp.delivery_wait:g} s ({len(delivery.drains)} drain(s) of every page)",
            expected=f"an instruction with text {text!r}",
            observed=delivery.items[:20],
        )


@case("heartbeat.instructions.any-status", level=Level.MUST, spec=DELIVERY, needs=("heartbeat",))
async def delivered_whatever_the_status(mcp: McpTarget, details: dict) -> None:
    """Pending instructions are delivered "automatically", whatever the heartbeats report: with each
    status value the tool's own inputSchema offers, and with none; and to a session whose first
    heartbeat comes after the operator hook accepted an instruction for it."""
    lost = Problems(
        lambda shown: Violation(
            f"an instruction enqueued for the session never arrived within {mcp.delivery_wait:g} s with "
            + "; nor with ".join(p for _, p in shown),
            expected="pending instructions delivered whatever the status reported and whenever the session began",
            observed=[p for _, p in shown],
        )
    )
    with lost.kept(details):  # a later status's session refused keeps the instructions already lost
        for status in [None, *mcp.status_values()]:
            sid = await started_session(mcp)
            text = marker(f"status {status}")
            await enqueue(mcp, sid, text)
            fields = {} if status is None else {"status": status}
            if (await mcp.await_delivery(sid, [text], **fields)).missing:
                lost.add(
                    None,
                    f"heartbeats reporting status {status!r}" if status else "heartbeats reporting no status",
                )
        early, text = new_session_id(), marker("before the first heartbeat")
        refused = await mcp.instruct(early, text, refusable=True)
        details["before_first_heartbeat"] = refused or "accepted by the operator hook"
        if refused is None and (await mcp.await_delivery(early, [text])).missing:
            lost.add(
                None, "a session whose first heartbeat came after the operator hook accepted the instruction"
            )
    lost.judge()


@case("heartbeat.instructions.redelivery-ends-at-ack", level=Level.MUST, spec=DELIVERY, needs=("heartbeat",))
async def acknowledgement_ends_redelivery(mcp: McpTarget, details: dict) -> None:
    """An unacknowledged instruction may come again (at once, later or never: a MAY); whenever the
    agent acknowledges it, by the id it was first delivered with, it never comes again."""
    sid = await started_session(mcp)
    text = marker("late-ack")
    await enqueue(mcp, sid, text)
    delivery = await mcp.await_delivery(sid, [text])
    if delivery.missing:
        raise await not_delivered(mcp, delivery, "the enqueued instruction")
    first = ids_for(delivery.first_with(text), [text])
    later = [ids_for((await mcp.drain(sid))[0], [text]) for _ in range(2)]
    details["redelivered"] = [
        "again, same id" if ids == first else "again, another id" if ids else "not again" for ids in later
    ]
    await mcp.ok_heartbeat(sid, acknowledgedInstructionIds=first)  # late: after two more heartbeats
    for attempt in range(1, 4):
        again, _ = await mcp.drain(sid)
        if has(again, text) or set(first) & {i.id for i in again}:
            raise Violation(
                f"an instruction acknowledged by the id it was first delivered with ({first}), two heartbeats "
                f"later, came again on heartbeat {attempt} after the acknowledgement (its redeliveries: "
                f"{', '.join(details['redelivered'])})",
                expected="never again once acknowledged, whichever of its deliveries the id came from",
                observed=again[:20],
            )


@case("heartbeat.instructions.acked-never-again", level=Level.MUST, spec=ACK, needs=("heartbeat",))
async def acknowledged_never_again(mcp: McpTarget, details: dict) -> None:
    """Once its id is sent in acknowledgedInstructionIds, an instruction never comes again; and the
    acknowledgement removes no other instruction that was never delivered. In each protocol era
    the server speaks: where the run speaks the stateless one, on a handshake-era connection too."""
    await in_each_era(mcp, details, _acknowledged_never_again)


async def in_each_era(mcp: McpTarget, details: dict, check: Callable[[McpTarget], Awaitable[None]]) -> None:
    """``check`` in the run's era and, when that is the stateless one, in the handshake era too
    where the server speaks it (a server may keep a queue per era's code path); a finding there
    says the era it was found in."""

    async def labelled(there: McpTarget) -> None:
        try:
            await check(there)
        except Violation as found:
            if there is not mcp and there.era is not None:
                found.message = f"in MCP {there.era.version} (the handshake era, on a connection of its own): {found.message}"
                found.args = (found.message,)
            raise

    await mcp.in_each_era(labelled, details)


async def _acknowledged_never_again(mcp: McpTarget) -> None:
    sid = await started_session(mcp)
    acked, kept = marker("acked"), marker("kept")
    await enqueue(mcp, sid, acked)
    delivery = await mcp.await_delivery(sid, [acked])
    ack_ids = ids_for(delivery.first_with(acked), [acked])
    if not ack_ids:
        await delivery.explain_missing(mcp)
        raise Violation(
            "the enqueued instruction was not delivered, so it could not be acknowledged",
            observed=delivery.items[:20],
        )
    # Enqueued now, it is pending and never delivered when the acknowledgement is sent: it must
    # still come (one delivered already may not: redelivery is a MAY).
    await enqueue(mcp, sid, kept)
    answer = await mcp.ok_heartbeat(sid, acknowledgedInstructionIds=ack_ids)
    kept_seen = has(mcp.instructions(answer), kept)
    for attempt in range(1, 4):
        again, _ = await mcp.drain(sid)
        if has(again, acked) or set(ack_ids) & {i.id for i in again}:
            raise Violation(
                f"an acknowledged instruction came again on heartbeat {attempt} after its acknowledgement",
                expected=f"never again: {ack_ids}",
                observed=again[:20],
            )
        kept_seen = kept_seen or has(again, kept)
    if not kept_seen:
        late = await mcp.await_delivery(sid, [kept])
        if late.missing:
            await late.explain_missing(mcp)
            raise Violation(
                "acknowledging one instruction also removed another, enqueued before the acknowledgement and "
                f"never delivered: it did not come within {mcp.delivery_wait:g} s",
                expected=f"{kept!r} delivered",
                observed=late.items[:20],
            )


@case("heartbeat.instructions.paging", level=Level.MUST, spec=CURSOR, needs=("heartbeat",))
async def paging_loses_and_duplicates_nothing(mcp: McpTarget, details: dict) -> None:
    """Following instructionCursor page by page yields every pending instruction, none twice in one
    drain (they may come over several drains while they become pending)."""
    sid = await started_session(mcp)
    texts = [marker(f"page-{n}") for n in range(7)]
    await enqueue(mcp, sid, *texts)
    delivery = await mcp.await_delivery(sid, texts)
    pages = max(delivery.pages)
    problems = Problems(
        lambda shown: Violation(
            f"paging through {pages} page(s): " + "; ".join(p for _, p in shown),
            expected=f"each of the {len(texts)} pending instructions, once per drain",
            observed=texts_of(delivery.items, texts)[:20],
        )
    )
    for n, drain in enumerate(delivery.drains, 1):
        ours = texts_of(drain, texts)
        doubled = sorted({t for t in ours if ours.count(t) > 1})
        ids = [i.id for i in drain]
        doubled_ids = sorted({i for i in ids if ids.count(i) > 1})
        if doubled:
            problems.add(None, f"drain {n}: {len(doubled)} delivered twice")
        if doubled_ids:
            problems.add(None, f"drain {n}: ids repeated: {doubled_ids[:5]}")
    lost = delivery.missing
    details.update(pages=pages, drains=len(delivery.drains), delivered=texts_of(delivery.items, texts)[:20])
    if lost:
        # A cursor the suite did not follow explains what is lost, not what came twice.
        with problems.kept(details):
            await delivery.explain_missing(mcp)
        problems.add(
            None, f"{len(lost)} instruction(s) lost (not on any page within {mcp.delivery_wait:g} s)"
        )
    problems.judge()
    if pages == 1:
        raise NotApplicable(
            f"the server delivered all {len(texts)} pending instructions with no cursor: paging did not arise"
        )


@case("heartbeat.instructions.per-session", level=Level.MUST, spec=DELIVERY, needs=("heartbeat",))
async def instructions_stay_in_their_session(mcp: McpTarget, details: dict) -> None:
    """An instruction enqueued for one session never appears in another session's results (asked
    before it was delivered where it belongs, unless a stated session cap of one would evict that
    session with its queue, and after)."""
    mine, other = await started_session(mcp), await started_session(mcp)
    text = marker("elsewhere")
    await enqueue(mcp, other, text)
    # Asked first, while it has been delivered nowhere: a shared queue hands it out here.
    early = [] if mcp.options.session_cap == 1 else await mcp.drain_replies(mine)
    delivery = await mcp.await_delivery(other, [text])
    if delivery.missing:
        raise await not_delivered(mcp, delivery, "the instruction, in its own session,")
    late, _ = await mcp.drain(mine)  # once it surely is pending
    items = mcp.items_of(early) + late  # read now: a result that omits an empty list is empty
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
    if mcp.options.session_cap == 1:
        raise NotApplicable(
            "under --mcp-session-cap 1 this session's heartbeat evicts the other session with its queue: no instruction "
            "of another session is pending while this one's heartbeat acknowledges"
        )
    mine, other = await started_session(mcp), await started_session(mcp)
    text, control = marker("acked-elsewhere"), marker("control-elsewhere")
    await enqueue(mcp, other, text, control)
    delivery = await mcp.await_delivery(other, [text, control])
    ids = ids_for(delivery.first_with(text), [text])
    if delivery.missing or not ids:
        raise await not_delivered(mcp, delivery, "the two instructions")
    await mcp.heartbeat(mine, acknowledgedInstructionIds=ids)  # refusing ids it never sent is fine too
    after, _ = await mcp.drain(other)
    # Both were delivered alike and neither acknowledged in its session: whether the server
    # delivers the control again (a MAY) shows whether it would deliver the other.
    if not has(after, control):
        raise MissingInput(
            "the server did not deliver the unacknowledged control instruction again (redelivery is a MAY), so "
            "whether the other session's acknowledgement removed its twin does not show"
        )
    if not has(after, text):
        raise Violation(
            "acknowledging another session's instruction id in this session's heartbeat removed it from that "
            "session (acknowledgements applied by id, whatever the session)",
            expected=f"{text!r} still pending in its own session, as its twin {control!r} is",
            observed=after[:20],
        )


@case("heartbeat.instructions.cursor-other-session", level=Level.MUST, spec=CURSOR, needs=("heartbeat",))
async def cursor_stays_in_its_session(mcp: McpTarget, details: dict) -> None:
    """A cursor from one session's page, sent in another session's heartbeat, delivers none of the
    first session's instructions."""
    mine, other = await started_session(mcp), await started_session(mcp)
    texts = [marker(f"cursor-{n}") for n in range(3)]
    await enqueue(mcp, other, *texts)
    cursor, seen, items, last = await _first_page_cursor(mcp, other, texts)
    if not seen:
        raise NotTestable(
            f"none of the session's pending instructions was delivered within {mcp.delivery_wait:g} s",
            observed=items[:20],
        )
    if cursor is None:
        missing = [t for t in texts if t not in seen]
        hiding = await mcp.cursor_hiding(other, [last], missing) if missing else None
        if hiding is not None:
            raise MissingInput(unfollowed_message(hiding, len(missing)))
        raise NotApplicable(
            f"the server delivered {len(seen)} instruction(s) of 3 pending with no cursor: no page to continue"
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


async def _first_page_cursor(
    mcp: McpTarget, sid: str, texts: list[str]
) -> tuple[str | None, set[str], list[Instruction], ToolReply]:
    """Heartbeats (no cursor followed) until one delivers some of the texts with a cursor, or every
    text came without one, or the delivery wait is over: the cursor, the texts seen, the last items
    and reply."""
    deadline, pause = time.monotonic() + mcp.delivery_wait, 0.02
    seen: set[str] = set()
    items: list[Instruction] = []
    while True:
        reply = await mcp.ok_heartbeat(sid)
        try:
            items = mcp.instructions(reply)
        except NoInstructionList as missing:
            raise_if_elsewhere(missing, [reply], texts)
            if time.monotonic() >= deadline:
                raise
            items = []
        ours = set(texts_of(items, texts))
        seen |= ours
        cursor = mcp.cursor(reply)
        if (ours and cursor is not None) or len(seen) == len(texts) or time.monotonic() >= deadline:
            return (cursor if ours else None), seen, items, reply
        await anyio.sleep(max(0.0, min(pause, deadline - time.monotonic())))
        pause = min(pause * 2, 0.5)


# -- acknowledgements beside other calls -----------------------------------------------------------


async def _redelivered_pair(mcp: McpTarget, sid: str, label: str) -> tuple[str, str, list[str]]:
    """Two instructions delivered alike, one to acknowledge and one as the control, on a server shown
    to deliver an unacknowledged instruction again at once (a MAY: only then does an instruction
    coming again, or not, say anything); the ids the first one was last delivered with."""
    text, control = marker(label), marker(f"{label}-control")
    await enqueue(mcp, sid, text, control)
    delivery = await mcp.await_delivery(sid, [text, control])
    if delivery.missing:
        raise await not_delivered(mcp, delivery, "the two enqueued instructions")
    again, _ = await mcp.drain(sid)
    if not (has(again, text) and has(again, control)):
        raise MissingInput(
            "the server did not deliver the two unacknowledged instructions again on the next heartbeat (redelivery "
            "is a MAY), so whether one comes again after an acknowledgement says nothing"
        )
    return text, control, ids_for(again, [text])


def _control_gone(control: str, where: str) -> Violation:
    return Violation(
        f"acknowledging one instruction removed another: the unacknowledged control, delivered again on every "
        f"heartbeat before, did not come {where}",
        expected=f"{control!r} still delivered: an acknowledgement affects only the ids it names",
        observed=where,
    )


@case("heartbeat.instructions.ack-answer-omits-acked", level=Level.MUST, spec=ACK, needs=("heartbeat",))
async def acknowledging_answer_omits_the_acknowledged(mcp: McpTarget, details: dict) -> None:
    """The answer to the heartbeat that acknowledges an instruction does not list it: the server
    has received the acknowledgement when it builds that answer (a page built before the
    acknowledgement is applied hands the agent, once more, what it said it has processed); and the
    control instruction, delivered alike and not acknowledged, still comes."""
    sid = await started_session(mcp)
    text, control, ids = await _redelivered_pair(mcp, sid, "acked-in-answer")
    replies = await mcp.drain_replies(sid, acknowledgedInstructionIds=ids)
    answer = mcp.instructions(replies[0])
    details["answer"] = answer[:20]
    if has(answer, text) or set(ids) & {i.id for i in answer}:
        raise Violation(
            "the answer to the heartbeat that acknowledged an instruction still listed it",
            expected=f"the acknowledged {ids} absent from that very answer",
            observed=answer[:20],
        )
    if not has(mcp.items_of(replies), control):
        raise _control_gone(control, "in the answer to the acknowledging heartbeat nor on its next pages")


@case("heartbeat.instructions.retry-after-ack", level=Level.MUST, spec=ACK, needs=("heartbeat",))
async def retry_after_acknowledgement(mcp: McpTarget, details: dict) -> None:
    """A retry of a heartbeat whose answer delivered an instruction, sent after that instruction was
    acknowledged, is answered without undoing the acknowledgement: the instruction never comes again
    (while the control, delivered alike and not acknowledged, still does)."""
    sid = await started_session(mcp)
    text, control, _ = await _redelivered_pair(mcp, sid, "retry-after-ack")
    key = new_key()
    pages = await mcp.drain_replies(sid, idempotencyKey=key)  # the first delivers both again
    listed = has(mcp.instructions(pages[0]), text)
    ids = ids_for(mcp.items_of(pages), [text])
    await mcp.ok_heartbeat(sid, acknowledgedInstructionIds=ids)
    retry = await mcp.heartbeat(sid, idempotencyKey=key)
    details["retry"] = retry.describe()
    drains = [(await mcp.drain(sid))[0] for _ in range(2)]
    back = [n for n, items in enumerate(drains, 1) if has(items, text) or set(ids) & {i.id for i in items}]
    if back:
        raise Violation(
            f"after a retry of a heartbeat whose answer listed it, an instruction acknowledged before the retry came "
            f"again (drain {back[0]} after the retry)",
            expected="never again once acknowledged: a retry is answered, not applied again",
            observed=drains[back[0] - 1][:20],
        )
    if not listed:
        raise MissingInput(
            "the retried heartbeat did not list the instruction: a retry had nothing to put back"
        )
    if not any(has(items, control) for items in drains):
        raise _control_gone(control, "in two drains after the retry")


@case("heartbeat.instructions.ack-some", level=Level.MUST, spec=ACK, needs=("heartbeat",))
async def acknowledging_some_keeps_the_rest(mcp: McpTarget, details: dict) -> None:
    """Acknowledging some of the pending instructions, out of order (the middle one, then the newest,
    then an id the server never sent), removes those and no other: each unacknowledged one, delivered
    again on every heartbeat before, still comes, and an acknowledged one does not. In each protocol
    era the server speaks."""
    await in_each_era(mcp, details, _acknowledging_some)


async def _acknowledging_some(mcp: McpTarget) -> None:
    sid = await started_session(mcp)
    texts = [marker(f"ack-some-{n}") for n in range(3)]  # three: pages of one and small allowances
    await enqueue(mcp, sid, *texts)
    delivery = await mcp.await_delivery(sid, texts)
    if delivery.missing:
        raise await not_delivered(mcp, delivery, "the three enqueued instructions")
    again, _ = await mcp.drain(sid)
    if not all(has(again, t) for t in texts):
        raise MissingInput(
            "the server did not deliver the three unacknowledged instructions again on the next heartbeat "
            "(redelivery is a MAY), so whether the ones left unacknowledged come again says nothing"
        )
    ids = {t: ids_for(again, [t]) for t in texts}
    oldest, middle, newest = texts
    # Enqueue order, not delivery order: an acknowledgement taken as a committed position in the
    # queue removes what came before it, so the middle one and the newest are acknowledged first.
    steps = [
        ("the middle one of three", ids[middle], [middle], [oldest, newest]),
        ("the newest", ids[newest], [middle, newest], [oldest]),
    ]
    sent = {i for found in ids.values() for i in found}
    unknown = _never_sent(ids[newest][0], sent) if ids[newest] else None
    if unknown is not None:
        steps.append((f"an id the server never sent ({unknown!r})", [unknown], [middle, newest], [oldest]))
    for what, acked, gone, kept in steps:
        reply = await mcp.heartbeat(sid, acknowledgedInstructionIds=acked)
        if reply.rejected:  # ids it never sent may be refused
            continue
        after, _ = await mcp.drain(sid)
        back = [t for t in gone if has(after, t)]
        lost = [t for t in kept if not has(after, t)]
        if lost or back:
            raise Violation(
                f"after a heartbeat acknowledged {what}, "
                + (
                    f"{len(lost)} unacknowledged instruction(s), delivered again on every heartbeat before, did not "
                    "come on the next (the acknowledgement covered more than the ids it named)"
                    if lost
                    else f"{len(back)} acknowledged instruction(s) came again on the next heartbeat"
                ),
                expected=f"{kept!r} delivered again, {gone!r} never: an acknowledgement removes only the ids it names",
                observed=after[:20],
            )


def _never_sent(model: str, sent: set[str]) -> str | None:
    """An id the server never sent that looks like ``model``: the same length and alphabet, its
    last character changed (an unknown id unlike the server's own may be refused before any lookup)."""
    last = model[-1:]
    alphabet = (
        "0123456789" if last.isdigit() else "abcdef" if last.islower() else "ABCDEF" if last.isupper() else ""
    )
    for c in alphabet:
        if model[:-1] + c not in sent:
            return model[:-1] + c
    return None


@case("heartbeat.instructions.ack-with-report", level=Level.MUST, spec=PURPOSE, needs=("heartbeat",))
async def acknowledging_heartbeat_reports_too(mcp: McpTarget, details: dict) -> None:
    """A heartbeat that acknowledges an instruction and reports the session's state records the
    state it reports, as one that acknowledges nothing does: every field the results show back
    (status, progress, step), not only the probe's."""
    probe = await calibrate(mcp)
    probes = await calibrate_all(mcp, probe)
    details["probe"] = [p.describe() for p in probes]
    sid = await started_session(mcp)
    text = marker("ack-and-report")
    await enqueue(mcp, sid, text)
    delivery = await mcp.await_delivery(sid, [text])
    ids = ids_for(delivery.first_with(text), [text])
    if not ids:
        raise await not_delivered(mcp, delivery, "the enqueued instruction")
    written = {p.field: p.values(1)[0] for p in probes}
    await mcp.ok_heartbeat(sid, acknowledgedInstructionIds=ids, **written)
    data = (await read_untouched(mcp, sid)).data
    lost = {p.field: p.value_in(data) for p in probes if not same(p.value_in(data), written[p.field])}
    if lost:
        shown = ", ".join(f"{field} reads {now!r}" for field, now in lost.items())
        raise Violation(
            f"a heartbeat that acknowledged an instruction and reported {written!r} did not record it all: {shown}",
            expected=", ".join(f"{field} {written[field]!r}" for field in lost),
            observed=lost,
        )


# -- model-based sequences -------------------------------------------------------------------------

SEQUENCE_ID = "heartbeat.instructions.model-based"


@case(SEQUENCE_ID, level=Level.MUST, spec=DELIVERY, needs=("heartbeat",), rules=tuple(RULES), slow=True)
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
    if not run.steps:  # found before any sequence ran (its calibration): the case's frames show it
        raise Violation(
            run.failure,
            expected="every heartbeat result allowed by the queue model; the rule broken: "
            + RULES.get(run.rule or "", "none named"),
            rule=run.rule if run.rule in RULES else None,
        )
    steps = [s.to_json() for s in run.steps]
    details["steps"] = steps
    details["sequence"] = numbered_steps(run.steps)
    if config.report_dir:
        path = write_replay(
            Path(config.report_dir) / "replays",
            case_id=SEQUENCE_ID,
            command=config.command,
            cwd=config.cwd,
            agent_info=mcp.server_info,
            spec_revision="mcp-session-heartbeat-2025-06-18",
            seed=run.seed,
            profile=run.profile,
            failure=run.failure,
            steps=steps,
            target="mcp",
            extra_agent=mcp.replay_record(config),
            config=config,
        )
        details["replay_file"] = str(path)
    raise Violation(
        f"{run.failure} (minimal sequence of {len(run.steps)} steps, seed {run.seed})",
        expected="every heartbeat result allowed by the queue model; the rule broken: "
        + RULES.get(run.rule or "", "none named"),
        # the steps and answers; their frames are the case's transcript, not repeated here
        observed="\n".join(numbered_steps(run.steps, frames=False)),
        rule=run.rule if run.rule in RULES else None,
    )

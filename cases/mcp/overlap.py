"""MCP `session_heartbeat`: heartbeats in flight together, for one session and for two.

An agent's heartbeat loop, a retry, an acknowledgement sent as soon as an instruction is handled:
calls for one session overlap, and two agents' loops overlap on one server. A server that reads a
session, waits on its storage and writes the session back loses what a call in between wrote (a
lost update); one that keeps the record a call works on outside the call writes it into another
session's. Each case sends its calls at once and then judges only what every order of them
allows: the answers of calls racing each other may show either side of the race; what every call
wrote must hold once all have been answered. A call the server refuses while another runs ("busy,
retry") is not held to anything. The operator's side overlaps them too: an instruction enqueued
while a heartbeat is being answered must not be lost to that heartbeat's write (a queue or an
operator's spool emptied after it was read, a queue compacted after an acknowledgement).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import anyio

from conformance.core.outcomes import MissingInput, NotTestable, Problems, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.probe import calibrate, same
from conformance.targets.mcp.target import (
    McpTarget,
    NoInstructionList,
    ToolReply,
    has,
    ids_for,
    new_session_id,
)

# "Instruction IDs the agent has received and processed."
ACK = requirement("mcp-session-heartbeat-2025-06-18", "ack")
# "Report session status, progress, and the current step."
PURPOSE = requirement("mcp-session-heartbeat-2025-06-18", "purpose")
# "Pending human instructions are delivered automatically; unacknowled…"
DELIVERY = requirement("mcp-session-heartbeat-2025-06-18", "delivery")
# Heartbeats sent back to back while the operator hook runs, at most: a server on stdio answers
# one in a millisecond while a hook that starts a process takes tens of them.
MOST_IN_FLIGHT = 1000
# Where the window is a server's storage round trip inside each heartbeat, an instruction lands
# in it only some of the time (less on a loaded machine, where more of each heartbeat is transit):
# the instruction is enqueued among heartbeats this many times before nothing lost passes, with
# a few more attempts for a hook that outlasts the heartbeats.
COVERED_ROUNDS = 4
ATTEMPTS = 6
# The heartbeats in flight: acknowledging nothing, or acknowledging an instruction delivered before
# (a server that compacts its queue on an acknowledgement writes the queue only then).
RULES = ("plain", "acknowledging")


def _marker(label: str) -> str:
    return f"conformance {label} {uuid.uuid4().hex[:10]}"


async def together(
    mcp: McpTarget, sid: str, calls: list[dict[str, Any]], *, first_ahead: float = 0.0
) -> list[ToolReply]:
    """These heartbeats for one session, all in flight at once (the first sent ``first_ahead``
    seconds before the others, so that it is under way when they land); their replies in order."""
    return await in_flight(mcp, [(sid, call) for call in calls], first_ahead=first_ahead)


async def in_flight(
    mcp: McpTarget, calls: list[tuple[str, dict[str, Any]]], *, first_ahead: float = 0.0
) -> list[ToolReply]:
    """Heartbeats for (session, arguments), all in flight at once, sent in this order (the first
    ``first_ahead`` seconds before the others); their replies in order."""
    replies: list[Any] = [None] * len(calls)

    async def send(n: int) -> None:
        sid, arguments = calls[n]
        replies[n] = await mcp.heartbeat(sid, **arguments)

    async with anyio.create_task_group() as tg:
        for n in range(len(calls)):
            tg.start_soon(send, n)
            if n == 0 and first_ahead:
                await anyio.sleep(first_ahead)
    return replies


@case("heartbeat.overlap.concurrent-acks", level=Level.MUST, spec=ACK, needs=("heartbeat",))
async def acknowledgements_sent_together_all_hold(mcp: McpTarget, details: dict) -> None:
    """Two instructions acknowledged by two heartbeats in flight at once, just after a heartbeat that
    acknowledges nothing: once all three are answered, neither instruction comes again."""
    mcp.require_instruct()
    sid = new_session_id()
    await mcp.ok_heartbeat(sid, status="active")
    first, second = _marker("overlap-ack-1"), _marker("overlap-ack-2")
    await mcp.instruct(sid, first)
    await mcp.instruct(sid, second)
    delivery = await mcp.await_delivery(sid, [first, second])
    if delivery.missing:
        await delivery.explain_missing(mcp)
        raise NotTestable(
            "the two enqueued instructions were not delivered (see heartbeat.instructions.delivered)",
            observed=delivery.items[:20],
        )
    # A lost acknowledgement shows only as an instruction that comes again: the server must be one
    # that delivers an unacknowledged instruction again (a MAY), which these two show.
    again, _ = await mcp.drain(sid)
    if not (has(again, first) and has(again, second)):
        raise MissingInput(
            "the server did not deliver the two unacknowledged instructions again (redelivery is a MAY), so an "
            "acknowledgement lost to a concurrent heartbeat would not show"
        )
    ids = {text: ids_for(again, [text]) for text in (first, second)}  # as last delivered
    # A heartbeat that acknowledges nothing, sent just before: the acknowledgements must survive a
    # delivery that read the session before they landed, and each other.
    replies = await together(
        mcp,
        sid,
        [{}, {"acknowledgedInstructionIds": ids[first]}, {"acknowledgedInstructionIds": ids[second]}],
        first_ahead=0.02,
    )
    applied = [text for text, reply in zip((first, second), replies[1:3], strict=True) if reply.succeeded]
    details["answered"] = [r.succeeded for r in replies]
    if not applied:
        raise MissingInput(
            "the server refused both acknowledging heartbeats sent together: " + replies[1].describe()
        )
    for attempt in range(1, 3):
        after, _ = await mcp.drain(sid)
        back = [t for t in applied if has(after, t) or set(ids[t]) & {i.id for i in after}]
        if back:
            raise Violation(
                f"{len(back)} of the instructions acknowledged by heartbeats in flight together came again on "
                f"drain {attempt} after all were answered: an acknowledgement was lost to a concurrent heartbeat "
                "(the session read, then written back over it)",
                expected="never again, whatever the order the server ran the calls in",
                observed=after[:20],
            )


@case("heartbeat.overlap.concurrent-writes", level=Level.MUST, spec=PURPOSE, needs=("heartbeat",))
async def reports_sent_together_all_hold(mcp: McpTarget, details: dict) -> None:
    """Heartbeats in flight together, each reporting a different field: once all are answered, the
    field only one of them reported reads back as it reported it (sent first, then sent last). And
    two sessions' heartbeats in flight together: each session reads back what its own reported."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    others = [
        {"progressPercent": 37.5} if probe.field != "progressPercent" else {"currentStep": _marker("other")},
        {"status": "blocked"} if probe.field != "status" else {"currentStep": _marker("other")},
    ]
    lost: list[str] = []
    details["lost"] = lost
    problems = Problems.listed(
        f"{probe.field} as the only call that reported it wrote it",
        lead=f"a heartbeat's {probe.field}, answered with success, was lost to heartbeats in flight beside it that did "
        "not report it (each wrote back the whole session as it read it): ",
    )
    with problems.kept(details):  # a later session refused keeps the write already lost
        for position in (0, 2):
            sid = new_session_id()
            await mcp.ok_heartbeat(sid, status="active")
            value = probe.values(1)[0]
            calls = list(others)
            calls.insert(position, probe.write(value))
            replies = await together(mcp, sid, calls)
            if not replies[position].succeeded:
                continue  # refused while the others ran: it wrote nothing
            now = await probe.read(mcp, sid)
            if not same(now, value):
                lost.append(
                    f"sent {'first' if position == 0 else 'last'}: {probe.field} reads {now!r}, not {value!r}"
                )
                problems.add(None, lost[-1])
        forgotten: list[str] = []
        crossed = await _sessions_apart(mcp, probe, forgotten)
        if forgotten:
            details["forgotten, as plain sessions are"] = forgotten
    details["crossed"] = crossed
    if crossed:
        raise Violation(
            f"heartbeats for two sessions, in flight together and answered with success, each reporting its own "
            f"{probe.field}: "
            + "; ".join(crossed)
            + " (state the server kept for one call went to the other's session)",
            expected=f"each session's {probe.field} as its own heartbeat reported it",
            observed=crossed,
        )
    problems.judge()


async def _sessions_apart(mcp: McpTarget, probe: Any, forgotten: list[str]) -> list[str]:
    """Two new sessions, each sent a heartbeat reporting its own value of the probe's field, both
    in flight at once (twice, each session first once): what each session reads back where it is
    not the value its own heartbeat reported. A read with no state at all goes to ``forgotten``
    where plain sessions are forgotten the same way (a session cap of one)."""
    crossed = []
    for first in (0, 1):
        sids = [new_session_id(), new_session_id()]
        for sid in sids:
            await mcp.ok_heartbeat(sid, status="active")
        values = probe.values(2)
        calls = [(sids[n], probe.write(values[n])) for n in (first, 1 - first)]
        replies = dict(zip((first, 1 - first), await in_flight(mcp, calls), strict=True))
        for n, sid in enumerate(sids):
            if not replies[n].succeeded:
                continue  # refused while the other ran: it wrote nothing
            now = await probe.read(mcp, sid)
            if same(now, values[n]):
                continue
            shown = f"session {sid} reads {probe.field} {now!r}, its own heartbeat reported {values[n]!r}"
            # No state at all, one other session used since: what a session cap of one does to
            # plain sessions too.
            if not same(now, values[1 - n]) and await probe.forgets_after(mcp, 1):
                forgotten.append(shown)
                continue
            crossed.append(shown)
    return crossed


@dataclass
class Stream:
    """Heartbeats sent one after another, each as soon as the one before was answered, while an
    operator hook ran: when each was sent and answered, their replies, and the hook's own span."""

    spans: list[tuple[float, float]] = field(default_factory=list)
    replies: list[ToolReply] = field(default_factory=list)
    hook: tuple[float, float] = (0.0, 0.0)

    def covered(self) -> bool:
        """Whether a heartbeat was in flight for the whole of the hook's call: the first sent before
        it began, the last answered after it returned, none missing in between (back to back)."""
        return bool(self.spans) and self.spans[0][0] <= self.hook[0] and self.spans[-1][1] >= self.hook[1]


async def heartbeats_around(mcp: McpTarget, sid: str, text: str, **fields: Any) -> Stream:
    """Enqueue ``text`` through the operator hook while heartbeats of the session (with these
    fields) are in flight, back to back, from just before the hook is started until the heartbeat
    in flight when it returned has been answered (at most MOST_IN_FLIGHT of them, and a quarter of
    the session's request limit where the user stated one: a session has two such streams)."""
    stream = Stream()
    hook_done = anyio.Event()
    limit = mcp.options.request_limit  # the session's allowance must outlast the case's drains
    most = MOST_IN_FLIGHT if limit is None else min(MOST_IN_FLIGHT, limit // 4)

    async def beat() -> None:
        while not hook_done.is_set() and len(stream.spans) < most:
            sent = time.monotonic()
            stream.replies.append(await mcp.heartbeat(sid, **fields))
            stream.spans.append((sent, time.monotonic()))

    async with anyio.create_task_group() as tg:
        tg.start_soon(beat)
        await anyio.sleep(0.005)  # the first heartbeat is under way when the hook starts
        began = time.monotonic()
        try:
            await mcp.instruct(sid, text)
        finally:
            stream.hook = (began, time.monotonic())
            hook_done.set()
    return stream


def delivered_in(mcp: McpTarget, replies: list[ToolReply]) -> list[Any]:
    """The instructions the accepted replies carried (a result may omit an empty list)."""
    items: list[Any] = []
    for reply in replies:
        if reply.succeeded:
            try:
                items += mcp.instructions(reply)
            except NoInstructionList:
                continue
    return items


@case(
    "heartbeat.overlap.enqueue-in-flight",
    level=Level.MUST,
    spec=DELIVERY,
    needs=("heartbeat",),
    rules=RULES,
)
async def instruction_enqueued_in_flight_is_delivered(mcp: McpTarget, details: dict) -> None:
    """An instruction the operator enqueues while heartbeats of its session are in flight (back to
    back for the whole of the hook's call) is delivered, in one of them or after: never lost to a
    heartbeat that read the queue before it landed and wrote it back after. Heartbeats that
    acknowledge nothing (plain), and heartbeats that acknowledge the instruction enqueued that way
    before (acknowledging: a server that drops what is acknowledged from the queue writes the
    queue). Four rounds of each, each pair with a new session: a window inside each heartbeat is
    hit only some of the time."""
    mcp.require_instruct()
    # A slow hook can outlast the heartbeats a fast server answers back to back within the case's
    # bound: another attempt, with a new session, may cover it.
    covered = dict.fromkeys(RULES, 0)
    unjudged: dict[str, str] = {}
    for attempt in range(1, ATTEMPTS + 1):
        sid = new_session_id()
        await mcp.ok_heartbeat(sid, status="active")
        stream, ids = await _enqueue_among_heartbeats(mcp, sid, "plain", details)
        covered["plain"] += stream.covered()
        if ids:
            acking, _ = await _enqueue_among_heartbeats(mcp, sid, "acknowledging", details, ids)
            # A refused heartbeat acknowledged nothing: what landed beside it landed beside no
            # acknowledgement (a loss there still fails: the instruction must come whatever the call did).
            covered["acknowledging"] += acking.covered() and all(r.succeeded for r in acking.replies)
        else:
            unjudged["acknowledging"] = (
                "the instruction delivered in the plain round carried no id the suite could read to acknowledge"
            )
        details["attempts"] = attempt
        details["covered"] = dict(covered)
        if min(covered.values()) >= COVERED_ROUNDS:
            break
    for rule in RULES:
        if covered[rule]:
            unjudged.pop(rule, None)
        elif rule not in unjudged:
            unjudged[rule] = (
                f"in {details['attempts']} attempts no {rule} heartbeat was in flight for the whole of the operator "
                f"hook's call ({details[rule]}, as many as the case sends back to back)"
            )
    if unjudged:
        details["unjudged"] = unjudged
    if len(unjudged) == len(RULES):
        raise MissingInput(
            "the instructions came, but whether one would survive landing during a heartbeat was not shown: "
            + "; ".join(f"{rule}: {why}" for rule, why in unjudged.items())
        )


async def _enqueue_among_heartbeats(
    mcp: McpTarget, sid: str, rule: str, details: dict, acknowledged: list[str] | None = None
) -> tuple[Stream, list[str]]:
    """One round: an instruction enqueued among the session's heartbeats (each acknowledging these
    ids, if any); a loss fails. The stream, and the ids the instruction was delivered with."""
    text = _marker(f"overlap-enqueue-{rule}")
    fields = {"acknowledgedInstructionIds": acknowledged} if acknowledged else {}
    stream = await heartbeats_around(mcp, sid, text, **fields)
    details[rule] = (
        f"{len(stream.spans)} heartbeat(s) over the hook's {stream.hook[1] - stream.hook[0]:.3f} s"
    )
    if ids := ids_for(delivered_in(mcp, stream.replies), [text]):
        return stream, _once_each(ids)
    delivery = await mcp.await_delivery(sid, [text])
    if delivery.missing:
        await delivery.explain_missing(mcp)
        raise Violation(
            f"an instruction the operator enqueued while {rule} heartbeats of its session were in flight "
            f"({details[rule]}) never arrived: not in their results, nor in drains for {mcp.delivery_wait:g} s "
            "after (a heartbeat that read the queue, or the operator's spool, before it landed wrote it back, or "
            "emptied it, after)",
            expected=f"an instruction with text {text!r}",
            observed=delivery.items[:20],
            rule=rule,
        )
    details[f"{rule} delivered"] = f"after the heartbeats, {delivery.arrived[text]:.3f} s into the drains"
    return stream, _once_each(ids_for(delivery.first_with(text), [text]))


def _once_each(ids: list[str]) -> list[str]:
    """The ids an instruction came with, once each however often it came."""
    return list(dict.fromkeys(ids))

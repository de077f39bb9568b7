"""MCP `session_heartbeat`: heartbeats in flight together, for one session and for two.

An agent's heartbeat loop, a retry, an acknowledgement sent as soon as an instruction is handled:
calls for one session overlap, and two agents' loops overlap on one server. A server that reads a
session, waits on its storage and writes the session back loses what a call in between wrote (a
lost update); one that keeps the record a call works on outside the call writes it into another
session's. Each case sends its calls at once and then judges only what every order of them
allows: the answers of calls racing each other may show either side of the race; what every call
wrote must hold once all have been answered. A call the server refuses while another runs ("busy,
retry") is not held to anything.
"""

from __future__ import annotations

import uuid
from typing import Any

import anyio

from conformance.core.outcomes import MissingInput, NotTestable, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.probe import calibrate, same
from conformance.targets.mcp.target import McpTarget, ToolReply, has, ids_for, new_session_id

# "Instruction IDs the agent has received and processed."
ACK = requirement("mcp-session-heartbeat-2025-06-18", "ack")
# "Report session status, progress, and the current step."
PURPOSE = requirement("mcp-session-heartbeat-2025-06-18", "purpose")


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
    lost = []
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
    details["lost"] = lost
    crossed = await _sessions_apart(mcp, probe)
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
    if lost:
        raise Violation(
            f"a heartbeat's {probe.field}, answered with success, was lost to heartbeats in flight beside it that did "
            "not report it (each wrote back the whole session as it read it): " + "; ".join(lost),
            expected=f"{probe.field} as the only call that reported it wrote it",
            observed=lost,
        )


async def _sessions_apart(mcp: McpTarget, probe: Any) -> list[str]:
    """Two new sessions, each sent a heartbeat reporting its own value of the probe's field, both
    in flight at once (twice, each session first once): what each session reads back where it is
    not the value its own heartbeat reported."""
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
            if not same(now, values[n]):
                crossed.append(
                    f"session {sid} reads {probe.field} {now!r}, its own heartbeat reported {values[n]!r}"
                )
    return crossed

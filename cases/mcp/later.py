"""MCP `session_heartbeat`: what must still hold a while later.

A pending instruction is delivered, and an acknowledged one never comes again: not only in the
next heartbeat, but after the session has been left alone for a while (a queue that forgets
instructions after a few seconds, acknowledgements kept in a short-lived cache). The suite
watches for ``--hold`` seconds (the profile's: 3 in ci, 15 in thorough) before it believes a
state stays. A server may see an instruction only when a heartbeat comes (a spool read on each
call, as the stdio operator's is), so a time to live can start there: the hold also covers
instructions a heartbeat has seen but left on a later page, never delivered.
"""

from __future__ import annotations

import contextlib
import time
import uuid

import anyio

from conformance.core.outcomes import MissingInput, NotTestable, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.target import (
    McpTarget,
    NoInstructionList,
    carries,
    has,
    ids_for,
    new_session_id,
)
from conformance.targets.mcp.twins import policy

# "Pending human instructions are delivered automatically; unacknowled…"
DELIVERY = requirement("mcp-session-heartbeat-2025-06-18", "delivery")


def _marker(label: str) -> str:
    return f"conformance {label} {uuid.uuid4().hex[:10]}"


async def idle_ttl(mcp: McpTarget) -> float | None:
    """The server's idle time to live, as the user stated it or the thorough profile's discovery
    finds it (None: not known)."""
    ttl = mcp.options.session_ttl
    if ttl is None and mcp.harness.config.profile == "thorough":
        with contextlib.suppress(MissingInput):
            ttl = (await policy(mcp, "session_ttl")).low
    return ttl


def held_for(mcp: McpTarget, ttl: float | None, created: float) -> tuple[float, str]:
    """How long to leave a session alone: the hold, unless the server forgets idle sessions sooner:
    then until a little less than the time to live since the session was created (``created``, on
    the monotonic clock), which is within it whether the server counts it from the last use or,
    as some do, from creation."""
    hold = mcp.harness.config.hold_seconds
    left = None if ttl is None else 0.8 * ttl - (time.monotonic() - created)
    if left is not None and left < hold:
        seconds = max(0.0, left)
        return (
            seconds,
            f"{seconds:.2f} s, within the server's time to live ({ttl:g} s) since the session began",
        )
    return hold, f"{hold:g} s (--hold)"


PAGED = 3  # instructions enqueued before one heartbeat: more than a page of 1 or 2 holds


async def first_page(mcp: McpTarget, sid: str, texts: list[str]) -> list[str]:
    """Which of these texts one heartbeat delivers (its first page only: no cursor followed)."""
    reply = await mcp.ok_heartbeat(sid)
    try:
        items = mcp.instructions(reply)
    except (NoInstructionList, MissingInput):  # no list while it is empty, or not found yet
        return []
    return [t for t in texts if any(carries(i, t) for i in items)]


@case("heartbeat.later.pending-held", level=Level.MUST, spec=DELIVERY, needs=("heartbeat",), slow=True)
async def pending_instruction_is_held(mcp: McpTarget, details: dict) -> None:
    """An instruction enqueued and never delivered is still delivered after the session was left
    alone for the hold, whether or not a heartbeat came between (and left it on a page it did not
    deliver); one acknowledged before the hold still never comes."""
    mcp.require_instruct()
    ttl = await idle_ttl(mcp)
    sid = new_session_id()
    created = time.monotonic()
    await mcp.ok_heartbeat(sid, status="active")
    acked, pending = _marker("held-acked"), _marker("held-pending")
    await mcp.instruct(sid, acked)
    delivery = await mcp.await_delivery(sid, [acked])
    ids = ids_for(delivery.first_with(acked), [acked])
    if not ids:
        await delivery.explain_missing(mcp)
        raise NotTestable(
            "the enqueued instruction was not delivered, so it could not be acknowledged (see "
            "heartbeat.instructions.delivered)",
            observed=delivery.items[:20],
        )
    await mcp.ok_heartbeat(sid, acknowledgedInstructionIds=ids)
    # Seen by a heartbeat, not all delivered: a server that pages leaves some for later pages
    # (a server that sees instructions only when a heartbeat comes sees these).
    paged = [_marker(f"held-paged-{n}") for n in range(1, PAGED + 1)]
    for text in paged:
        await mcp.instruct(sid, text)
    shown = await first_page(mcp, sid, paged)
    unseen = [t for t in paged if t not in shown]
    # Enqueued after the last heartbeat before the hold: never seen by one.
    await mcp.instruct(sid, pending)
    seconds, why = held_for(mcp, ttl, created)
    details.update(
        held=why,
        watched=round(seconds, 2),
        undelivered_before_hold=1 + len(unseen),
        delivered_before_hold=len(shown),
    )
    await anyio.sleep(seconds)
    later = await mcp.await_delivery(sid, [pending, *unseen])
    # Shown, not judged: a delivered instruction may come again or not (a MAY).
    details["redelivered_after_hold"] = len([t for t in shown if has(later.items, t)])
    if has(later.items, acked) or set(ids) & {i.id for i in later.items}:
        raise Violation(
            f"an instruction acknowledged before the session was left alone for {why} came again after it",
            expected=f"never again: {ids}",
            observed=later.items[:20],
        )
    if later.missing:
        await later.explain_missing(mcp)
        lost = len(later.missing)
        raise Violation(
            f"{lost} instruction(s) enqueued and never delivered were not delivered after the session was left "
            f"alone for {why} (asked again for {mcp.delivery_wait:g} s): the server forgot them"
            + (
                ", enqueued before a heartbeat that did not deliver them (a later page, or not seen yet)"
                if pending not in later.missing
                else ""
            )
            + " (if it forgets idle sessions sooner, with their instructions, pass --mcp-session-ttl SECONDS)",
            expected=f"instructions with texts {later.missing!r}",
            observed=later.items[:20],
        )

"""A client that reads slowly: requests in flight while it reads nothing, each answered once it
reads again (JSON-RPC: "the Server MUST reply with a Response").

A host busy elsewhere stops taking an agent's stdout for a moment; the pipe between them holds
64 KiB, after which the agent's writes wait. An agent that must never wait (a queue it drops
from when full, a non-blocking write whose EAGAIN is swallowed) loses answers there, which no
client that reads promptly ever sees. The burst is sized from the answers the agent itself gave:
enough requests that their answers come to several times what a pipe and the agent's own buffers
hold, and the reads are held while the agent could answer the whole burst at its measured pace.
Answers are then waited for as long as they keep coming, so a slow agent that answers everything
passes: only requests still unanswered when the agent has answered nothing for a while are lost.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from conformance.core.outcomes import NotTestable, Violation
from conformance.transport.peer import Reply

__all__ = ["Plan", "answer_bytes", "burst_size", "judge", "plan", "wide_text"]

# Text one to four bytes wide a character (2, 3, 4 and 1): the burst's requests carry some, so that
# wherever a reader's blocks end, of whatever size, some block ends inside a character (a reader
# that decodes each block on its own breaks there).
WIDE_TEXT = "é中😀-"


def wide_text(chars: int) -> str:
    """``chars`` characters of WIDE_TEXT, repeated."""
    return (WIDE_TEXT * (chars // len(WIDE_TEXT) + 1))[:chars]


# What the burst's answers should come to: eight pipes' worth.
TARGET_BYTES = 512 * 1024
FEWEST = 64
# The burst should take about this long at the agent's measured pace, at most.
BURST_SECONDS = 20.0
# How long reads are held: at least, at most; and the answers the agent should meet a full pipe
# with: four pipes' worth.
SHORTEST_HOLD, LONGEST_HOLD = 0.5, 3.0
OVERFLOW_BYTES = 256 * 1024


@dataclass(frozen=True)
class Plan:
    """How long the suite holds its reads once the burst is sent; how long it waits without any
    answer coming before it counts the rest as lost; and how long after reading again at most."""

    hold: float
    stall: float
    limit: float


def answer_bytes(reply: Reply) -> int:
    """About how many bytes a reply took on the wire (its result or error, and the envelope)."""
    body = reply.result if reply.ok else reply.error
    return len(json.dumps(body, ensure_ascii=False, default=str)) + 40


def burst_size(answer: int, most: int, latency: float = 0.0) -> int:
    """Requests enough that answers of ``answer`` bytes come to TARGET_BYTES, at most ``most``,
    and no more than the agent answers in BURST_SECONDS at ``latency`` a request."""
    by_time = math.floor(BURST_SECONDS / latency) if latency > 0 else most
    return max(FEWEST, min(most, by_time, math.ceil(TARGET_BYTES / max(answer, 1))))


def plan(answer: int, pace: float, slowest: float, count: int, request_timeout: float) -> Plan:
    """The burst's clock, from the size of an answer, the agent's usual round trip (``pace``) and
    its slowest measured one. Reads are held while the agent could write OVERFLOW_BYTES of answers
    at its pace (a pipe and its own buffers several times over: an agent that drops what it cannot
    write meets a full pipe with answers still to write), within SHORTEST_HOLD and LONGEST_HOLD;
    the rest is waited for while answers keep coming, up to twenty slowest round trips (or the
    run's request clock, or 5 s) without one, and four times the burst at that pace in all."""
    overflowing = min(count, math.ceil(OVERFLOW_BYTES / max(answer, 1)))
    hold = min(LONGEST_HOLD, max(SHORTEST_HOLD, 1.2 * overflowing * pace))
    stall = max(5.0, request_timeout, 20 * slowest)
    return Plan(hold, stall, limit=max(30.0, 4 * count * slowest + stall))


def judge(
    calls: list[tuple[str, Any]],
    replies: list[Reply | None],
    held: bool,
    clock: Plan,
    details: dict[str, Any],
    *,
    named: str,
    strays: int = 0,
) -> None:
    """Violation where a request of the burst got no answer; ``named`` is the method whose
    requests the finding counts apart (the status method); ``strays``, the answers meanwhile
    under ids the suite never sent (an id read in pieces comes back changed)."""
    if not held:
        raise NotTestable("the suite could not hold its reads of this transport")
    got = [r for r in replies if r is not None]
    details["burst"] = {
        "requests": len(calls),
        "answered": len(got),
        "answer_kib": round(sum(answer_bytes(r) for r in got) / 1024),
        "held_s": round(clock.hold, 2),
        "stall_s": round(clock.stall, 1),
        **({"answers_to_ids_never_sent": strays} if strays else {}),
    }
    lost = [n for n, r in enumerate(replies) if r is None]
    if not lost:
        return
    of_named = sum(1 for n in lost if calls[n][0] == named or _tool(calls[n][1]) == named)
    first = calls[lost[0]]
    changed = (
        f" {strays} answers came under ids the suite never sent: the requests' ids were not echoed as sent (a "
        "request read in pieces, or its id changed)."
        if strays
        else ""
    )
    raise Violation(
        f"{len(lost)} of {len(calls)} requests sent while the client read nothing for {clock.hold:.1f} s got no "
        f"answer ({of_named} of them {named}; the first, request #{lost[0] + 1} of the burst: {first[0]}): once the "
        f"client read again the agent answered {len(got)} and then nothing for {clock.stall:.0f} s. Answers it "
        f"could not write at once, or requests it could not read whole from the burst, were lost.{changed}",
        expected="a response to every request, once the client reads again, with the id it was sent",
        observed={
            "requests": len(calls),
            "unanswered": len(lost),
            "first_unanswered": lost[0] + 1,
            **({"answers_to_ids_never_sent": strays} if strays else {}),
        },
    )


def _tool(params: Any) -> Any:
    return params.get("name") if isinstance(params, dict) else None

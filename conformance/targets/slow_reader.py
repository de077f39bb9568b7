"""A client that reads slowly: requests in flight while it reads nothing, each answered once it
reads again (JSON-RPC: "the Server MUST reply with a Response").

A host busy elsewhere stops taking an agent's stdout for a moment; the pipe between them holds
64 KiB, after which the agent's writes wait. An agent that must never wait (a queue it drops
from when full, a non-blocking write whose EAGAIN is swallowed) loses answers there, which no
client that reads promptly ever sees. The burst is sized from the answers the agent itself gave:
enough requests that their answers come to several times what a pipe and the agent's own buffers
hold, and each request's time limit is the hold plus what the burst takes at the agent's measured
pace, so a slow agent that answers everything passes.
"""

from __future__ import annotations

import json
import math
from typing import Any

from conformance.core.outcomes import NotTestable, Violation
from conformance.transport.peer import Reply

__all__ = ["HOLD", "answer_bytes", "burst_size", "burst_timeout", "judge"]

# How long the suite reads nothing while the burst is in flight.
HOLD = 0.5
# What the burst's answers should come to: eight pipes' worth.
TARGET_BYTES = 512 * 1024
FEWEST = 64


def answer_bytes(reply: Reply) -> int:
    """About how many bytes a reply took on the wire (its result or error, and the envelope)."""
    body = reply.result if reply.ok else reply.error
    return len(json.dumps(body, ensure_ascii=False, default=str)) + 40


def burst_size(answer: int, most: int) -> int:
    """Requests enough that answers of ``answer`` bytes come to TARGET_BYTES, at most ``most``."""
    return max(FEWEST, min(most, math.ceil(TARGET_BYTES / max(answer, 1))))


def burst_timeout(latency: float, count: int, request_timeout: float) -> float:
    """Each request's limit: the hold, the burst at the agent's pace (four times what one
    request took alone, for each), and the run's request clock."""
    return HOLD + 4 * latency * count + max(request_timeout, 5.0)


def judge(
    calls: list[tuple[str, Any]],
    replies: list[Reply | None],
    held: bool,
    timeout: float,
    details: dict[str, Any],
    *,
    named: str,
) -> None:
    """Violation where a request of the burst got no answer; ``named`` is the method whose
    requests the finding counts apart (the status method)."""
    if not held:
        raise NotTestable("the suite could not hold its reads of this transport")
    got = [r for r in replies if r is not None]
    details["burst"] = {
        "requests": len(calls),
        "answered": len(got),
        "answer_kib": round(sum(answer_bytes(r) for r in got) / 1024),
        "held_s": HOLD,
        "limit_s": round(timeout, 1),
    }
    lost = [n for n, r in enumerate(replies) if r is None]
    if not lost:
        return
    of_named = sum(1 for n in lost if calls[n][0] == named or _tool(calls[n][1]) == named)
    first = calls[lost[0]]
    raise Violation(
        f"{len(lost)} of {len(calls)} requests sent while the client read nothing for {HOLD:g} s got no answer "
        f"within {timeout:.0f} s of their sending ({of_named} of them {named}; the first, request "
        f"#{lost[0] + 1} of the burst: {first[0]}): answers the agent could not write at once were lost, "
        "not delayed",
        expected="a response to every request, once the client reads again",
        observed={"requests": len(calls), "unanswered": len(lost), "first_unanswered": lost[0] + 1},
    )


def _tool(params: Any) -> Any:
    return params.get("name") if isinstance(params, dict) else None

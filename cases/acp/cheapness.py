"""Cheapness: status is an in-memory lookup, measured against the agent's own session/list."""

import math
import shutil
import statistics
import tempfile

from conformance.cases.acp import spec

from conformance.core.outcomes import MissingInput, Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.target import AcpTarget

CALLS = 200
ABSOLUTE_P99 = 0.050  # seconds
HTTP_CALLS = 40
RELATIVE = 10.0
FAST = 0.1  # the quantile the relative rule compares
# Below this, a round trip is scheduling noise on a loaded CI machine, not an expensive lookup.
NOISE_FLOOR = 0.002


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


@case("status.cheap.latency", level=Level.SHOULD, spec=spec.CHEAP, slow=True)
async def status_is_cheap(acp: AcpTarget, details: dict) -> None:
    """Status p99 over 200 calls is under 50 ms, and status is not 10x slower than session/list of
    an empty directory."""
    sid = await acp.new_session()
    with_list = acp.advertises("list")
    if acp.harness.config.transport == "http" and not with_list:
        raise MissingInput(
            "over Streamable HTTP each call's own latency (tens of ms) hides what status costs, and the agent "
            "advertises no session/list to compare it with"
        )
    # The baseline is the agent's cheapest list: a directory with no session. The run's own cwd
    # holds every session the run made (hundreds by now), and a list that grows with them would
    # let a status that reads storage pass as "only 3x a list".
    empty_cwd = tempfile.mkdtemp(prefix="conformance-empty-")
    try:
        list_cwd = await baseline_cwd(acp, empty_cwd) if with_list else acp.cwd
        try:
            await measure(acp, sid, with_list, list_cwd, details)
        except Violation as first:
            # Measured once more: a loaded machine stalls a few calls now and then, while a
            # status that does real work is as slow the second time.
            details["first_measurement"] = first.message
            await measure(acp, sid, with_list, list_cwd, details)
    finally:
        shutil.rmtree(empty_cwd, ignore_errors=True)


async def baseline_cwd(acp: AcpTarget, empty_cwd: str) -> str:
    """The empty directory, unless the agent refuses to list it (then the run's own cwd)."""
    reply = await acp.call("session/list", {"cwd": empty_cwd})
    return empty_cwd if reply.ok else acp.cwd


async def measure(acp: AcpTarget, sid: str, with_list: bool, list_cwd: str, details: dict) -> None:
    # Over Streamable HTTP each call is a POST plus an SSE event: the transport's own latency
    # (tens of ms) is no property of the agent, so there only the relative rule judges.
    http = acp.harness.config.transport == "http"
    calls = HTTP_CALLS if http else CALLS
    details["absolute_rule"] = not http
    await acp.status(sid)  # warm-up
    status_times: list[float] = []
    list_times: list[float] = []
    allowed_slow = calls - math.ceil(0.99 * calls)  # more slow calls than this fix the p99
    slow = 0
    # Interleaved, so that machine noise falls on both methods alike.
    for _ in range(calls):
        reply = await acp.status(sid)
        status_times.append(reply.elapsed)
        slow += reply.elapsed > ABSOLUTE_P99 and not http
        if slow > allowed_slow:
            break
        if with_list:
            listed = await acp.call("session/list", {"cwd": list_cwd})
            if listed.ok:  # an error answer is no list: it proves nothing about what listing costs
                list_times.append(listed.elapsed)
    p50, p99 = statistics.median(status_times), percentile(status_times, 0.99)
    details.update(calls=len(status_times), p50_ms=round(p50 * 1000, 3), p99_ms=round(p99 * 1000, 3))
    # The relative rule first: the fastest tenth holds on a loaded machine, which may also have
    # stalled a few calls past the absolute bound.
    problems = []
    if list_times and (relative := relative_problem(acp, status_times, list_times, list_cwd, details)):
        problems.append(relative)
    if slow > allowed_slow:
        problems.append(
            (
                f"session/status p99 is over {ms(ABSOLUTE_P99)}: {slow} of {len(status_times)} calls were slower "
                f"(p50 {ms(p50)}); stopped early",
                f"p99 <= {ms(ABSOLUTE_P99)}",
                f"p50 {ms(p50)}, {slow} calls over {ms(ABSOLUTE_P99)}",
            )
        )
    if problems:
        raise Violation(
            "; ".join(p[0] for p in problems),
            expected="; ".join(p[1] for p in problems),
            observed="; ".join(p[2] for p in problems),
        )


def relative_problem(
    acp: AcpTarget, status_times: list[float], list_times: list[float], list_cwd: str, details: dict
) -> tuple[str, str, str] | None:
    """(message, expected, observed) where status is over RELATIVE times the agent's own list."""
    # The fastest tenth on both sides: a loaded machine only ever adds to a round trip (it
    # stretched list's median from 0.5 to 5 ms, and a status 20 ms slower than list passed),
    # while a status that does real work is slow on every call, its fastest ones too.
    status_p10, list_p10 = percentile(status_times, FAST), percentile(list_times, FAST)
    on_empty = list_cwd != acp.cwd
    details.update(
        list_cwd="empty" if on_empty else "run",
        p10_ms=round(status_p10 * 1000, 3),
        list_p10_ms=round(list_p10 * 1000, 3),
        list_p50_ms=round(statistics.median(list_times) * 1000, 3),
        list_p99_ms=round(percentile(list_times, 0.99) * 1000, 3),
    )
    if status_p10 <= NOISE_FLOOR or status_p10 <= RELATIVE * list_p10:
        return None
    listed = "an empty directory" if on_empty else "the run's directory"
    p50, p99 = statistics.median(status_times), percentile(status_times, 0.99)
    return (
        f"session/status takes {ms(status_p10)} (its fastest tenth), over {RELATIVE:g}x the agent's own "
        f"session/list round trip on {listed} ({ms(list_p10)}): status is not an in-memory lookup",
        f"status p10 <= {RELATIVE:g} x {ms(list_p10)}",
        f"status p10 {ms(status_p10)}, p50 {ms(p50)}, p99 {ms(p99)}",
    )

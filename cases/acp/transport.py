"""ACP's stdio transport: the agent's stdout carries ACP messages and nothing else.

A banner or a log line on stdout is a robustness finding (ACP's transport, not the status spec):
it is reported here, once, with the offending line in the transcript, and named as stdout noise
in whichever other case it arrives during, without changing that case's outcome.
"""

import statistics
from typing import Any

from conformance.cases.acp import spec

from conformance.core.outcomes import NotApplicable, NotTestable, Violation
from conformance.core.registry import Level, case
from conformance.targets import slow_reader
from conformance.targets.acp.target import AcpTarget

# The slow reader's burst: at most this many status calls.
BURST_MOST = 2048
# A never-created id padded with this many characters of text one to four bytes wide
# (slow_reader.wide_text) makes a -32002 answer that echoes it in about 2.4 KB.
LONG_ID_PAD = 960


@case(
    "transport.stdout.messages-only",
    level=Level.ROBUSTNESS,
    spec=spec.STDOUT_ONLY_MESSAGES,
    needs=(),
    shows_handshake=True,
)
async def stdout_carries_only_messages(acp: AcpTarget, details: dict) -> None:
    """From its start to a closed session, every line the agent writes to stdout is an ACP message."""
    if acp.harness.config.transport != "stdio":
        raise NotApplicable("a stdio transport rule; this run reaches the agent over a network transport")
    peer = acp.peer  # it has read the agent's stdout since this process started: its banner too
    sid = await acp.new_session()
    if acp.advertises("status"):
        await acp.prompt(sid, "hello")  # status is the other cases' to ask: an agent may hang on it
    else:
        # The run is unimplemented whatever this case finds: a turn (a paid model call, up to
        # --turn-timeout) would not change that.
        details["turn"] = "not sent: the agent does not advertise the status method"
    if acp.advertises("list"):
        await acp.list_sessions()
    if acp.advertises("close"):
        await acp.close(sid)
    noise = [p for p in peer.problems if p.noise]
    details["lines"] = len(noise)
    if noise:
        first = noise[0]
        frame = next(
            (e.frame for e in acp.harness.transcript.since(first.index) if e.index == first.index), ""
        )
        raise Violation(
            f"the agent wrote {len(noise)} line(s) to stdout that are not ACP messages; the first, frame "
            f"#{first.index}: {frame[:200]!r} ({first.problem}). Write logs and banners to stderr",
            expected="only JSON-RPC messages on stdout (logs go to stderr)",
            observed=[p.index for p in noise],
        )


@case("transport.stdio.slow-reader", level=Level.MUST, spec=spec.ONE_RESPONSE, rules=("echoed-whole",))
async def answers_a_slow_reader(acp: AcpTarget, details: dict) -> None:
    """Over stdio, status calls in flight while the client reads nothing (an editor busy
    elsewhere: the pipe fills and the agent's writes must wait) are each answered once it reads
    again: calls for a live session, every fourth for a never-created id of 2.4 KB of text one to
    four bytes wide a character, as many as make the answers several times what a pipe holds,
    sized from the agent's own answers and pace. Reads are held while the agent could answer them
    all; then answers are waited for as long as they keep coming. An agent that drops what it
    cannot write at once loses answers no prompt reader sees lost. A -32002 whose data.sessionId
    is not the id sent, character for character, read it in pieces (rule ``echoed-whole``)."""
    if acp.harness.config.transport != "stdio":
        raise NotApplicable("a stdio rule: this run reaches the agent over a network transport")
    sid = await acp.new_session()
    samples = [await acp.status(sid) for _ in range(3)] + [await acp.status(_long_unknown(acp))]
    if not samples[0].ok:
        raise NotTestable(f"status of a new session was answered with {samples[0].describe()}")
    slowest = max(r.elapsed for r in samples)
    each = (3 * slow_reader.answer_bytes(samples[0]) + slow_reader.answer_bytes(samples[-1])) // 4
    count = slow_reader.burst_size(each, BURST_MOST, slowest)
    calls: list[tuple[str, Any]] = [
        (acp.status_method, {"sessionId": _long_unknown(acp) if n % 4 == 3 else sid}) for n in range(count)
    ]
    pace = statistics.median(r.elapsed for r in samples)
    clock = slow_reader.plan(each, pace, slowest, count, acp.harness.config.timeout)
    replies, held = await acp.peer.unread_burst(calls, hold=clock.hold, stall=clock.stall, limit=clock.limit)
    slow_reader.judge(calls, replies, held, clock, details, named=acp.status_method)
    misread = [
        (n, echoed)
        for n, ((_, params), reply) in enumerate(zip(calls, replies, strict=True))
        if reply is not None
        and not reply.ok
        and isinstance(echoed := ((reply.error or {}).get("data") or {}).get("sessionId"), str)
        and echoed != params["sessionId"]
    ]
    if misread:
        n, echoed = misread[0]
        sent = calls[n][1]["sessionId"]
        at = next(
            (i for i, (a, b) in enumerate(zip(sent, echoed, strict=False)) if a != b),
            min(len(sent), len(echoed)),
        )
        raise Violation(
            f"{len(misread)} of the burst's -32002 errors carry a data.sessionId other than the id sent (the first, "
            f"request #{n + 1}: from character {at} on, {echoed[at : at + 12]!r} for {sent[at : at + 12]!r}): the agent "
            "read those ids in pieces, and decoded each piece on its own",
            expected="data.sessionId: the id asked, character for character",
            observed={"requests": len(calls), "misread": len(misread)},
            rule="echoed-whole",
        )


def _long_unknown(acp: AcpTarget) -> str:
    return f"{acp.unknown_id()}-{slow_reader.wide_text(LONG_ID_PAD)}"

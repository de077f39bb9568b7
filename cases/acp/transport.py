"""ACP's stdio transport: the agent's stdout carries ACP messages and nothing else.

A banner or a log line on stdout is a robustness finding (ACP's transport, not the status spec):
it is reported here, once, with the offending line in the transcript, and named as stdout noise
in whichever other case it arrives during, without changing that case's outcome.
"""

from conformance.cases.acp import spec

from conformance.core.outcomes import NotApplicable, Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.target import AcpTarget


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

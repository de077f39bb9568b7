"""`inactive` for sessions the agent knows but does not hold: after close, after a restart (one
between turns, and one while a turn waits on the user's permission)."""

import contextlib

import anyio
from conformance.cases.acp import spec

from conformance.core import revisions
from conformance.core.outcomes import AgentExited, HarnessError, NotApplicable, Unanswered, Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.expect import SESSION_NOT_FOUND, expect_status
from conformance.targets.acp.target import AcpTarget


async def not_active(acp: AcpTarget, sid: str, context: str) -> str:
    """Status must not be `active`; `inactive` (or -32002 if the agent really forgot) is right."""
    reply = await acp.status(sid)
    if not reply.ok and reply.code == SESSION_NOT_FOUND:
        # Only right if the agent really cannot bring the session back.
        if acp.advertises("persist"):
            back = await acp.reopen(sid)
            if back.ok:
                raise Violation(
                    f"{context}: status answered -32002 (unknown), yet the agent then resumed the session",
                    expected="inactive",
                    observed="error -32002, then a successful resume/load",
                )
        return "unknown"
    return expect_status(reply, {"inactive"}, context, unknown_ok=True)


@case("status.inactive.after-close", level=Level.MUST, spec=spec.INACTIVE, needs=("status", "close"))
async def inactive_after_close(acp: AcpTarget, details: dict) -> None:
    """After session/close, status is `inactive` (never `active`)."""
    sid = await acp.new_session()
    await acp.prompt(sid, "hello")
    await acp.close(sid)
    details["status_after_close"] = await not_active(acp, sid, "status after session/close")


@case(
    "status.inactive.after-restart", level=Level.MUST, spec=spec.INACTIVE, rules=("other-process",), slow=True
)
async def inactive_after_restart(acp: AcpTarget, details: dict) -> None:
    """After the agent restarts, a session it persisted is `inactive`; if not persisted, -32002.
    Rule other-process, first: a session another process of the agent's command made (beside this
    one, then stopped: a second editor on the same project, closed) is -32002 here only where this
    process cannot resume it either."""
    await other_process_session(acp, details)
    sid = await acp.new_session()
    await acp.prompt(sid, "hello")
    await acp.restart()
    details["status_after_restart"] = await not_active(acp, sid, "status after an agent restart")


# Seconds an agent whose index of stored sessions lags its store (a file watcher) gets before an
# unknown answer about a session another process stored is believed.
INDEX_LAG = 0.5


async def other_process_session(acp: AcpTarget, details: dict) -> None:
    """A second process of the agent's command, in the same working directory, makes a session and
    gives it a turn, and is stopped; then status about that session here. Any word is right (the two
    processes may share one agent behind them, which still holds it); -32002, asked again after
    INDEX_LAG, is right only where this process cannot resume or load the session either."""
    if acp.harness.config.transport != "stdio" or not acp.harness.config.restartable:
        details["other_process"] = "not checked: a second process needs an agent command on stdio"
        return
    try:
        other = await acp.second_process("E")
        sid = await other.new_session()
        await other.prompt(sid, "hello")
    except (AgentExited, Unanswered, HarnessError) as exc:
        details["other_process"] = f"not checked: no second process beside the first ({str(exc)[:300]})"
        return
    finally:
        await acp.harness.stop_second_agents()
    reply = await acp.status(sid)
    if reply.ok or reply.code != SESSION_NOT_FOUND or not acp.advertises("persist"):
        details["other_process"] = reply.describe(120)
        return
    await anyio.sleep(INDEX_LAG)
    reply = await acp.status(sid)
    details["other_process"] = reply.describe(120)
    if reply.ok or reply.code != SESSION_NOT_FOUND:
        return
    back = await acp.reopen(sid)
    if back.ok:
        raise Violation(
            "a session a second process of the agent made and stored (that process then stopped) is unknown here "
            f"(-32002, twice {INDEX_LAG:g} s apart), yet this process then resumed it",
            expected="inactive (or any word: the session is known)",
            observed="error -32002, then a successful resume/load",
            rule="other-process",
        )


PERMISSION = "[permission] a turn that needs the user's permission"
# Seconds status is watched after a restart that ended a turn: state a dead turn left behind (a
# lock file, a persisted "running" flag) shows at once; a sweep that clears it shows within this.
WATCH_AFTER_RESTART = 1.0


@case("status.inactive.after-restart-mid-turn", level=Level.MUST, spec=spec.INACTIVE, slow=True)
async def inactive_after_restart_mid_turn(acp: AcpTarget, details: dict) -> None:
    """Two sessions, each given a turn; then a second turn on one of them waits on the user's
    permission (the suite holds its answer) and the agent restarts. Whatever a restarted agent
    holds, the two read alike, right after the restart and a moment later: the one whose turn was
    cut short is not `active` where the other is not (a lock or a "running" flag the dead turn left
    behind), and -32002 for it only where the agent cannot resume it either."""
    if not acp.harness.config.restartable:
        await acp.restart()  # says what to pass instead, before any turn is spent
    ended, cut = await acp.new_session(), await acp.new_session()
    for sid in (ended, cut):
        await acp.prompt(sid, "hello")  # saved by agents that save a session at a turn's end
    peer = acp.peer
    peer.hold_methods = {"session/request_permission"}
    held_before = len(peer.held)

    over = anyio.Event()  # the prompt was answered: refused, or the turn ended without asking

    async def turn() -> None:
        with contextlib.suppress(AgentExited, Unanswered):  # the restart ends it
            await acp.prompt(
                cut, PERMISSION, wait=False, timeout=acp.turn_timeout + acp.harness.config.timeout
            )
        over.set()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(turn)
            with anyio.move_on_after(acp.turn_timeout):
                while len(peer.held) == held_before and not over.is_set():
                    await anyio.sleep(0.01)
            if len(peer.held) == held_before:
                tg.cancel_scope.cancel()
                raise NotApplicable(
                    "the agent asked no permission for a prompt that needs one: no turn waited for the restart to cut "
                    "short"
                )
            await acp.restart()
    finally:
        peer.hold_methods = set()
        peer.held.clear()
    for when, pause in (
        ("right after the restart", 0.0),
        (f"{WATCH_AFTER_RESTART:g} s after it", WATCH_AFTER_RESTART),
    ):
        await anyio.sleep(pause)
        words = {"turn ended": await _word(acp, ended), "turn cut short": await _word(acp, cut)}
        details[when] = words
        active = revisions.word("active")
        if words["turn cut short"] == active and words["turn ended"] != active:
            raise Violation(
                f"{when}, the session whose turn the restart cut short reads {active!r}, while a session whose turn "
                f"had ended before it reads {words['turn ended']!r}: the dead turn left the session reading as in memory",
                expected=f"{words['turn ended']!r}, as the session whose turn had ended",
                observed=repr(active),
            )
        if words["turn cut short"] == "unknown" and words["turn ended"] != "unknown":
            await not_active(acp, cut, f"status {when} of the session whose turn the restart cut short")


async def _word(acp: AcpTarget, sid: str) -> str:
    """The session's status word, or "unknown" for -32002."""
    reply = await acp.status(sid)
    if not reply.ok and reply.code == SESSION_NOT_FOUND:
        return "unknown"
    return expect_status(reply, {"active", "inactive"}, "status after a restart", unknown_ok=True)

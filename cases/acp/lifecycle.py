"""`inactive` for sessions the agent knows but does not hold: after close, and after a restart
(that cut a turn short, beside a session another process of the agent made)."""

import contextlib
import functools
from typing import Any

import anyio
from conformance.cases.acp import spec

from conformance.core import revisions
from conformance.core.outcomes import AgentExited, HarnessError, Unanswered, Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.expect import SESSION_NOT_FOUND, expect_status
from conformance.targets.acp.rounds import answer
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


PERMISSION = "[permission] a turn that needs the user's permission"
# Seconds status is watched after a restart that ended a turn: state a dead turn left behind (a
# lock file, a persisted "running" flag) shows at once; a sweep that clears it shows within this.
WATCH_AFTER_RESTART = 1.0
# Seconds between two rounds of status calls about the sessions left behind, while that second
# passes: the new process's background work on the sessions it found (a compactor, an index
# rebuild) runs then, on whichever of them its own order takes first.
WATCH_STEP = 0.1
# Sessions of the run watched at once at most (the session whose turn had ended, then the newest).
WATCHED = 16


@case(
    "status.inactive.after-restart",
    level=Level.MUST,
    spec=spec.INACTIVE,
    rules=("mid-turn", "other-process", "stays-known"),
    slow=True,
)
async def inactive_after_restart(acp: AcpTarget, details: dict) -> None:
    """Two sessions, each given a turn; a second turn on one of them waits on the user's permission
    (the suite holds its answer) and the agent restarts. The session whose turn had ended is
    `inactive` if persisted, else -32002, never `active`. Rule mid-turn: the session whose turn
    was cut short reads as the other, right after the restart and WATCH_AFTER_RESTART later (a lock
    or a "running" flag the dead turn left behind). Rule other-process, in between: a session
    another process of the agent's command made (started after this one, then stopped: a second
    editor on the same project, closed) is -32002 here only where this process cannot resume it
    either. Rule stays-known: the session whose turn had ended and the run's other sessions
    (WATCHED at most), asked about together every WATCH_STEP for WATCH_AFTER_RESTART after the
    restart (while the new process's own background work runs on the sessions it found), are
    never -32002 between two answers that call them known."""
    if not acp.harness.config.restartable:
        await acp.restart()  # says what to pass instead, before any turn is spent
    unjudged: dict[str, str] = {}
    ended, cut = await acp.new_session(), await acp.new_session()
    for sid in (ended, cut):
        await acp.prompt(sid, "hello")  # saved by agents that save a session at a turn's end
    cut_short = await _restart_mid_turn(acp, cut)
    restarted = anyio.current_time()
    if not cut_short:
        unjudged["mid-turn"] = (
            "the agent asked no permission for a prompt that needs one: no turn waited for the restart"
        )
    details["status_after_restart"] = await not_active(acp, ended, "status after an agent restart")
    if cut_short:
        await _judge_cut_short(acp, details, ended, cut, "right after the restart")
    others = [sid for sid in reversed(acp.created) if sid not in (ended, cut)]
    watched: dict[str, list[tuple[float, str]]] = {sid: [] for sid in [ended, *others][:WATCHED]}
    why = ""
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_watch_known, acp, restarted, watched)
            why = await other_process_session(acp, details)
        if why:
            unjudged["other-process"] = why
        _judge_watch(watched, ended, details)
        if cut_short:
            await anyio.sleep(max(0.0, restarted + WATCH_AFTER_RESTART - anyio.current_time()))
            await _judge_cut_short(acp, details, ended, cut, f"{WATCH_AFTER_RESTART:g} s after the restart")
    finally:
        if unjudged:
            details["unjudged"] = unjudged


async def _watch_known(acp: AcpTarget, since: float, seen: dict[str, list[tuple[float, str]]]) -> None:
    """Status about every session of ``seen``, together, every WATCH_STEP: each answer's word
    (rounds.answer: "unknown" for -32002; other answers are other rules') with its time after
    ``since``. For WATCH_AFTER_RESTART, not as long as the other-process rule beside it (a real
    agent's turn there takes minutes); past that, while a session's last answer is a -32002 that
    followed a known one, until it answers again (twice as long at most: a background job's window
    that straddles the watch's end is seen whole)."""
    sids = list(seen)
    while True:
        elapsed = anyio.current_time() - since
        pending = any(_unknown_after_known(answers) for answers in seen.values())
        if elapsed >= WATCH_AFTER_RESTART and not (pending and elapsed < 2 * WATCH_AFTER_RESTART):
            return
        replies = await acp.together(*[functools.partial(acp.status, sid) for sid in sids])
        words = [answer(reply) for reply in replies]
        at = round(anyio.current_time() - since, 2)
        for sid, word in zip(sids, words, strict=True):
            seen[sid].append((at, word))
        await anyio.sleep(WATCH_STEP)


def _known(word: str) -> bool:
    """A status answer that calls the session known: a status word, not -32002 nor another error."""
    return word != "unknown" and not word.startswith("error")


def _unknown_after_known(answers: list[tuple[float, str]]) -> bool:
    return bool(answers) and answers[-1][1] == "unknown" and any(_known(word) for _, word in answers)


def _judge_watch(seen: dict[str, list[tuple[float, str]]], ended: str, details: dict) -> None:
    """Violation where a -32002 falls between two answers that call a session known: the agent
    knew the session before and after, so the -32002 between says it does not know a session it
    knows (a background rewrite of its record, read half-written)."""
    details["watched_after_restart"] = {
        "sessions": len(seen),
        "the session whose turn had ended": _runs(seen[ended]),
    }
    flapped = {}
    for sid, answers in seen.items():
        known = [n for n, (_, word) in enumerate(answers) if _known(word)]
        if known and any(word == "unknown" for _, word in answers[known[0] : known[-1] + 1]):
            flapped[sid] = _runs(answers)
    if flapped:
        sid, shown = next(iter(flapped.items()))
        which = "the session whose turn had ended" if sid == ended else "a session the run made earlier"
        raise Violation(
            f"after the restart, status about {len(flapped)} of {len(seen)} sessions the agent knows (asked about "
            f"together every {WATCH_STEP:g} s) answered -32002 between answers that called them known; "
            f"{which}: {shown}. The agent knew the session before and after: something it did in the "
            "background made status read it as unknown",
            expected="the same known word at each call (inactive), never -32002 between",
            observed={s[:80]: runs for s, runs in list(flapped.items())[:5]},
            rule="stays-known",
        )


def _runs(seen: list[tuple[float, str]]) -> str:
    """The watch's answers as runs: "inactive 0-0.35 s, unknown 0.40-0.60 s, inactive 0.65-1 s"."""
    runs: list[list[Any]] = []
    for t, word in seen:
        if runs and runs[-1][0] == word:
            runs[-1][2] = t
        else:
            runs.append([word, t, t])
    return ", ".join(f"{word} {a:g}-{b:g} s" if a != b else f"{word} {a:g} s" for word, a, b in runs[:12])


async def _restart_mid_turn(acp: AcpTarget, cut: str) -> bool:
    """Restart the agent while a turn on ``cut`` waits on a permission request the suite holds;
    False (and the agent restarted between turns) where the agent asks no permission."""
    peer = acp.peer
    over = anyio.Event()  # the prompt was answered: refused, or the turn ended without asking
    asked = False

    async def turn() -> None:
        with contextlib.suppress(AgentExited, Unanswered):  # the restart ends it
            await acp.prompt(
                cut, PERMISSION, wait=False, timeout=acp.turn_timeout + acp.harness.config.timeout
            )
        over.set()

    # The process that asked is restarted away: nothing to answer it.
    holding = peer.holding({"session/request_permission"}, answer=False)
    async with holding as held_before, anyio.create_task_group() as tg:
        tg.start_soon(turn)
        with anyio.move_on_after(acp.turn_timeout):
            while len(peer.held) == held_before and not over.is_set():
                await anyio.sleep(0.01)
        asked = len(peer.held) > held_before
        if asked:
            await acp.restart()  # the turn waits on the held request: the restart cuts it short
        else:
            tg.cancel_scope.cancel()
    if not asked:
        await acp.restart()
    return asked


async def _judge_cut_short(acp: AcpTarget, details: dict, ended: str, cut: str, when: str) -> None:
    words = {"turn ended": await _word(acp, ended), "turn cut short": await _word(acp, cut)}
    details[when] = words
    active = revisions.word("active")
    if words["turn cut short"] == active and words["turn ended"] != active:
        raise Violation(
            f"{when}, the session whose turn the restart cut short reads {active!r}, while a session whose turn "
            f"had ended before it reads {words['turn ended']!r}: the dead turn left the session reading as in memory",
            expected=f"{words['turn ended']!r}, as the session whose turn had ended",
            observed=repr(active),
            rule="mid-turn",
        )
    if words["turn cut short"] == "unknown" and words["turn ended"] != "unknown":
        try:
            await not_active(acp, cut, f"status {when} of the session whose turn the restart cut short")
        except Violation as found:
            found.rule = "mid-turn"
            raise


# Seconds an agent whose index of stored sessions lags its store (a file watcher) gets before an
# unknown answer about a session another process stored is believed.
INDEX_LAG = 0.5


async def other_process_session(acp: AcpTarget, details: dict) -> str:
    """A second process of the agent's command, in the same working directory, makes a session and
    gives it a turn, and is stopped; then status about that session here. Any word is right (the two
    processes may share one agent behind them, which still holds it); -32002, asked again after
    INDEX_LAG, is right only where this process cannot resume or load the session either. Returns
    why the rule could not be judged ("" when it was)."""
    other, why = await acp.second_process_or_reason("E")
    if other is None:
        return f"no second process ran beside the first ({why})"
    try:
        sid = await other.new_session()
        await other.prompt(sid, "hello")
    except (AgentExited, Unanswered, HarnessError) as exc:
        return f"the second process made no session with a turn ({str(exc)[:300]})"
    finally:
        await acp.harness.stop_second_agents()
    reply = await acp.status(sid)
    if reply.ok or reply.code != SESSION_NOT_FOUND or not acp.advertises("persist"):
        details["other_process"] = reply.describe(120)
        return ""
    await anyio.sleep(INDEX_LAG)
    reply = await acp.status(sid)
    details["other_process"] = reply.describe(120)
    if reply.ok or reply.code != SESSION_NOT_FOUND:
        return ""
    back = await acp.reopen(sid)
    if back.ok:
        raise Violation(
            "a session a second process of the agent made and stored (that process then stopped) is unknown here "
            f"(-32002, twice {INDEX_LAG:g} s apart), yet this process then resumed it",
            expected="inactive (or any word: the session is known)",
            observed="error -32002, then a successful resume/load",
            rule="other-process",
        )
    return ""


async def _word(acp: AcpTarget, sid: str) -> str:
    """The session's status word, or "unknown" for -32002."""
    reply = await acp.status(sid)
    if not reply.ok and reply.code == SESSION_NOT_FOUND:
        return "unknown"
    return expect_status(reply, {"active", "inactive"}, "status after a restart", unknown_ok=True)

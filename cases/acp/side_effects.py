"""No side effects: status never loads, resumes, creates, closes, changes or attaches.

Each case observes the session from outside, before and after status calls, through the
agent's own lifecycle methods.
"""

from collections.abc import Sequence
from typing import Any

import anyio
from conformance.cases.acp import spec
from conformance.cases.acp.implied import forgets_closed, forgot_on_may_path

from conformance.core import revisions
from conformance.core.outcomes import MissingInput, NotApplicable, NotTestable, Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.controls import (
    list_changes_from_status,
    notification_kind,
    notifications_from_status,
)
from conformance.targets.acp.expect import show, status_value
from conformance.targets.acp.sequences import HISTORY_KINDS, update_kind
from conformance.targets.acp.target import AcpTarget, session_of
from conformance.transport.peer import Reply

REPEATS = 20
# Turns of the session whose history the replay compares: 20 messages, more than the last dozen
# a retention limit keeps, so status code that opens the record through a routine that trims it
# shortens the replay (a session of one turn has nothing to trim).
HISTORY_TURNS = 10
# How long a first load that replayed no prompt is watched for a replay after its answer, at least.
LATE_REPLAY_WATCH = 2.0


def _answer(reply: Reply) -> str:
    if reply.ok:
        return status_value(reply, "status")
    return f"error {reply.code}"


@case("status.no-side-effects.inactive-stays-inactive", level=Level.MUST, spec=spec.NO_SIDE_EFFECTS)
async def inactive_stays_inactive(acp: AcpTarget, details: dict) -> None:
    """Many status calls on an inactive session leave it inactive (status does not load it)."""
    sid = await acp.inactive_session()
    answers = [_answer(await acp.status(sid))]
    details["answers"] = answers
    if revisions.canonical(answers[0]) == "active":
        raise NotTestable("the session is still `active` after close/restart (see status.inactive.*)")
    # It stops at the first answer that differs: the reproduction is then the calls that showed it.
    while len(answers) < REPEATS:
        answers.append(got := _answer(await acp.status(sid)))
        if got != answers[0]:
            raise Violation(
                f"status call #{len(answers)} on an inactive session answered {got!r} after {answers[0]!r}: "
                "status changed the session",
                expected=answers[0],
                observed=answers,
            )


@case("status.no-side-effects.unknown-stays-unknown", level=Level.MUST, spec=spec.NO_SIDE_EFFECTS)
async def unknown_stays_unknown(acp: AcpTarget, details: dict) -> None:
    """Status of an unknown id does not create it: status, resume and session/list agree afterwards."""
    asked = acp.unknown_id()
    answers = [_answer(await acp.status(asked)) for _ in range(3)]
    details["answers"] = answers
    if any(a != answers[0] for a in answers):
        raise Violation(
            f"repeated status of a never-created id changed its answer: {answers}",
            expected=[answers[0]] * len(answers),
            observed=answers,
        )
    if acp.advertises("list"):
        control = await acp.new_session()
        listed = await acp.list_sessions()
        if control not in listed:  # calibration: a list that shows none of ours proves nothing
            details["list"] = "not consulted: session/list does not show a session just created here"
        elif asked in listed:
            raise Violation(
                "session/list shows a session that only session/status was asked about", observed=asked
            )
    if acp.advertises("persist"):
        back = await acp.reopen(asked)
        if back.ok:
            control = await acp.reopen(acp.unknown_id())
            if control.ok:
                raise MissingInput(
                    "resume/load of any never-created id succeeds, so it cannot tell what status did"
                )
            raise Violation(
                "a never-created id could be resumed after session/status was asked about it",
                expected="error -32002",
                observed=back.describe(),
            )


@case("status.no-side-effects.active-accepts-prompt", level=Level.MUST, spec=spec.NO_SIDE_EFFECTS)
async def active_still_accepts_prompt(acp: AcpTarget, details: dict) -> None:
    """After status of an active session, it still accepts session/prompt (status did not evict it)."""
    sid = await acp.new_session()
    before = await acp.prompt(sid, "first")
    if not before.ok:  # a prompt probe that fails before any status call shows nothing
        raise MissingInput(f"session/prompt on a new session failed: {before.describe()}")
    for _ in range(3):
        await acp.status(sid)
    after = await acp.prompt(sid, "second")
    if not after.ok:
        # Calibration: a session's second turn, without status calls between, fails too (a
        # backend that allows one turn, a rate limit): then status is not what failed it.
        control = await acp.new_session()
        first, second = await acp.prompt(control, "first"), await acp.prompt(control, "second")
        if first.ok and not second.ok:
            raise MissingInput(
                f"a session's second turn fails without status calls too ({second.describe()}), so the prompt "
                "cannot show what status did"
            )
        raise Violation(
            "session/prompt failed after session/status: status evicted or changed the session",
            expected="a PromptResponse",
            observed=after.describe(),
        )


@case(
    "status.no-side-effects.list-unchanged",
    level=Level.MUST,
    spec=spec.NO_SIDE_EFFECTS,
    needs=("status", "list"),
)
async def list_entries_unchanged(acp: AcpTarget, details: dict) -> None:
    """session/list entries (ids, titles, updatedAt) are the same before and after status calls;
    what changes on the agent's own (a title made after a turn) changes the entry of a control
    session treated alike too, which status is never asked about."""
    live, live_control = await acp.prompted_sessions(2)
    controls = {live: live_control}
    if acp.advertises("close"):
        idle, idle_control = await acp.inactive_sessions(2)
        controls[idle] = idle_control
    blamed, before, after = await list_changes_from_status(acp, controls)
    if live not in before:  # calibration: a probe that cannot see the session proves nothing
        raise MissingInput(
            "session/list does not show a session just created in this working directory, "
            "so it cannot show what status calls change"
        )
    if blamed:
        sid, fields = next(iter(blamed.items()))
        raise Violation(
            f"the session/list entry of {sid} changed across session/status calls ({', '.join(sorted(fields))}), "
            "and that of a control session treated alike did not",
            expected=show(before.get(sid)),
            observed=show(after.get(sid)),
        )
    new_ids = sorted(set(after) - set(before))
    if new_ids:
        raise Violation("session/list gained sessions across session/status calls", observed=new_ids[:5])


@case("status.no-side-effects.no-notifications", level=Level.MUST, spec=spec.NO_SIDE_EFFECTS)
async def no_notifications(acp: AcpTarget, details: dict) -> None:
    """No session/update (or any notification) arrives because of a status call; what the agent
    sends on its own (a title a moment after a turn) reaches a control session treated alike
    too, which status is never asked about."""
    idle, idle_control = await acp.inactive_sessions(2)  # first: it may restart the agent
    live, live_control = await acp.prompted_sessions(2)
    blamed, about = await notifications_from_status(acp, {live: live_control, idle: idle_control})
    if about and not blamed:
        details["own_updates"] = sorted({notification_kind(n) for n in about})
    if blamed:
        first = blamed[0]
        raise Violation(
            f"{len(blamed)} notification(s) arrived after session/status, first {first.method}, that a control "
            "session treated alike did not get: status replayed or attached the session",
            expected="no notification",
            observed=show({"method": first.method, "params": first.params}),
        )


@case(
    "status.no-side-effects.history-unchanged",
    level=Level.MUST,
    spec=spec.NO_SIDE_EFFECTS,
    needs=("status", "load", "close", "v1"),
    rules=("replay-before-answer",),
)
async def history_unchanged(acp: AcpTarget, details: dict) -> None:
    """The history session/load replays is the same after status calls (on the session inactive
    and in memory) as before them, for a session of HISTORY_TURNS turns (longer than a retention
    window that maintenance code trims a record to); calibrated first: two loads with nothing
    between agree. A disagreement is looked at again once the session is quiet: an update the
    agent sends on its own a moment later (a title after the turn) lands in whichever replay is
    under way. Rule replay-before-answer: the replay is the probe, so the first load is watched
    until the session is quiet and closed again: a turn's prompt replayed only after the load's
    answer is the load's own MUST broken (ACP, Loading Sessions), and every later replay of the
    case would be read a load late."""
    sid = await acp.new_session()
    details["turns"] = await _turns(acp, sid, HISTORY_TURNS)
    await acp.close(sid)
    # The first replay before any status call: the history as the turns left it.
    late: list[dict] = []
    prompts = [_prompt(n) for n in range(details["turns"])]
    first = await _replay(acp, sid, first=True, late=late, prompts=prompts)
    if acp.frames_ordered:
        _judge_replay_order(first, late, prompts, details)
    else:
        details["unjudged"] = {
            "replay-before-answer": "over Streamable HTTP the load's answer and its updates come on two streams"
        }
    second = await _replay(acp, sid)
    if first != second:  # an update of the agent's own, sent late, may have landed in a replay's window
        await acp.quiet({sid})
        first, second = await _replay(acp, sid), await _replay(acp, sid)
    details["replayed_updates"] = len(first)
    if not first:
        raise MissingInput("session/load replays no history, so a change status made to it cannot be seen")
    if first != second:
        raise MissingInput(
            "two session/loads with nothing between them replay different histories, so the replay cannot show "
            "what status changed"
        )
    for _ in range(3):
        await acp.status(sid)  # inactive
    back, _ = await acp.load_replay(sid)
    if not back.ok:
        raise NotTestable(f"session/load after status calls failed: {back.describe()}")
    for _ in range(3):
        await acp.status(sid)  # in memory
    await acp.close(sid)
    after = await _replay(acp, sid)
    # A change status wrote into the history is in every later replay; a late update is not.
    if after != first:
        await acp.quiet({sid})
        after = await _replay(acp, sid)
    if after != first:
        added, gone = [u for u in after if u not in first], [u for u in first if u not in after]
        raise Violation(
            f"the history session/load replays changed across session/status calls ({len(first)} updates before, "
            f"{len(after)} after)",
            expected=show(first),
            observed=show({"added": added, "gone": gone} if added or gone else after),
        )


async def _turns(acp: AcpTarget, sid: str, count: int) -> int:
    """Up to ``count`` turns of the session, ending at the first prompt refused (an allowance):
    the turns it took. The replay compares whatever history they made."""
    for n in range(count):
        if not (await acp.prompt(sid, _prompt(n))).ok:
            return n
    return count


def _prompt(n: int) -> str:
    """The text of the session's turn ``n`` (from 0)."""
    return f"turn {n + 1} to remember"


def _user_text(updates: list[Any]) -> str:
    """The text of the user_message_chunk updates among ``updates``, joined (a replay may chunk a
    prompt's text)."""
    return "".join(
        str(u["content"].get("text", ""))
        for u in updates
        if isinstance(u, dict)
        and u.get("sessionUpdate") == "user_message_chunk"
        and isinstance(u.get("content"), dict)
    )


def _judge_replay_order(before: list, late: list[dict], prompts: Sequence[str], details: dict) -> None:
    """Each of the session's prompts that a load replayed only after its answer."""
    if late:
        details["after_load_answer"] = sorted({str(u.get("sessionUpdate")) for u in late})
    shown, after = _user_text(before), _user_text(late)
    replayed_late = [p for p in prompts if p in after and p not in shown]
    if replayed_late:
        raise Violation(
            f"session/load answered before it replayed the history: {len(replayed_late)} of the session's "
            f"{len(prompts)} prompts came as user_message_chunk updates after the load's answer "
            f"(first: {replayed_late[0]!r}), {len(before)} update(s) before it",
            expected="every replayed update before session/load's answer",
            observed=show({"before_answer": len(before), "after_answer": late[:6]}),
            rule="replay-before-answer",
        )


async def _replay(
    acp: AcpTarget,
    sid: str,
    *,
    first: bool = False,
    late: list[dict] | None = None,
    prompts: Sequence[str] = (),
) -> list:
    """The updates session/load replays for the closed session, which is closed again after it.
    The ``first`` load's failure is looked at: an agent that keeps no closed session is n/a.
    ``late`` gets the history updates of the session that came after the load's answer, until the
    session was quiet and closed again."""
    mark = len(acp.peer.notifications)
    reply, updates = await acp.load_replay(sid)
    if first and not reply.ok and await forgets_closed(acp, sid):
        raise NotApplicable(
            "the agent keeps no session once closed (it is not found: -32002), so none can be loaded"
        )
    if forgot_on_may_path(reply):
        raise NotApplicable(
            "the agent freed the session on close (load answers -32002) while status takes the MAY path "
            "(inactive for any session not in memory), so none can be loaded"
        )
    if not reply.ok:
        raise NotTestable(f"session/load of a closed session failed: {reply.describe()}")
    replayed = _user_text(updates)
    # Every prompt replayed before the answer: nothing of the history is left to come late.
    if late is not None and all(p in replayed for p in prompts):
        late = None
    if late is not None:
        await acp.quiet({sid})
    await acp.close(sid)
    if late is not None and reply.index >= 0:

        def after_answer() -> list[dict]:
            return [
                n.params["update"]
                for n in acp.peer.notifications[mark:]
                if n.index > reply.index
                and n.method == "session/update"
                and session_of(n.params) == sid
                and update_kind(n) in HISTORY_KINDS
            ]

        # A load that replayed none of the session's prompts may replay them from a task that
        # starts later than the quiet moment: watched for as long as a request may take.
        watch_until = anyio.current_time() + max(LATE_REPLAY_WATCH, acp.harness.config.timeout)
        while not after_answer() and not replayed and anyio.current_time() < watch_until:
            await anyio.sleep(0.1)
        late += after_answer()
    return updates

"""Overlapping calls: status calls in flight together, and status beside the session's own traffic.

Clients may call status often, for example as a routing probe: a router polls from several
places at once, and its probes meet the session's own lifecycle calls (a new session beside
it, a close, a prompt and its cancel). Each case sends its calls together, all on the wire
before the first answer is read, and matches each answer by its request's id: JSON-RPC does not
order answers, so an agent that answers the newest first, or one call at a time, passes. What
the calls leave behind is read afterwards, one call at a time.
"""

from typing import Any

import anyio
from conformance.cases.acp import spec
from conformance.cases.acp.implied import answer_of, check_implied

from conformance.core import revisions
from conformance.core.outcomes import MissingInput, NotTestable, Unanswered, Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.expect import SESSION_NOT_FOUND, show
from conformance.targets.acp.target import AcpTarget
from conformance.transport.peer import Reply

PERMISSION = "[permission] a turn that needs the user's permission"
BURST = 8  # status calls for one session in flight at once
LONG_ID = 4097  # one past a common storage limit (4 KiB)
SIDE = 4  # status calls on each side of a lifecycle call
OVERLAP_ROUNDS = 3  # bursts beside a session/new: a few milliseconds' window is hit in one of them


def _word(answer: str) -> str:
    return (
        "-32002"
        if answer == "unknown"
        else revisions.word(answer)
        if answer in ("active", "inactive")
        else answer
    )


@case("status.overlap.burst-leaves-sessions", level=Level.MUST, spec=spec.NO_SIDE_EFFECTS)
async def burst_leaves_sessions(acp: AcpTarget, details: dict) -> None:
    """Eight status calls for an inactive session, eight for a never-created id and eight for one
    past a storage limit (4097 characters), all in flight at once, load and create nothing: each
    answer is the one a lone call gets, the sessions read as before afterwards, and the
    never-created ids do not resume."""
    idle = await acp.inactive_session()
    unknown = acp.unknown_id()
    long = acp.unknown_id()
    long += "x" * (LONG_ID - len(long))
    targets = {
        "an inactive session": idle,
        "a never-created id": unknown,
        f"a never-created id of {LONG_ID} characters": long,
    }
    before = {label: answer_of(await acp.status(sid)) for label, sid in targets.items()}
    if before["an inactive session"] == "active":
        raise NotTestable("the session is still `active` after close/restart (see status.inactive.*)")
    replies = await acp.statuses(list(targets.values()) * BURST)
    during = {label: [answer_of(r) for r in replies[i :: len(targets)]] for i, label in enumerate(targets)}
    after = {label: answer_of(await acp.status(sid)) for label, sid in targets.items()}
    details.update(
        before={k: _word(v) for k, v in before.items()},
        burst={k: [_word(a) for a in v] for k, v in during.items()},
        after={k: _word(v) for k, v in after.items()},
    )
    for label in targets:
        odd = [a for a in during[label] if a != before[label]]
        if odd or after[label] != before[label]:
            raise Violation(
                f"status of {label} answered {_word(before[label])} alone, then "
                f"{', '.join(_word(a) for a in during[label])} for {BURST} calls in flight at once, and "
                f"{_word(after[label])} alone afterwards: status calls changed what the agent holds (they loaded or "
                "created the session)",
                expected=[_word(before[label])] * (BURST + 1),
                observed={
                    "in flight together": [_word(a) for a in during[label]],
                    "afterwards": _word(after[label]),
                },
            )
    if not acp.advertises("persist"):
        return
    for label in list(targets)[1:]:
        back = await acp.reopen(targets[label])
        if not back.ok:
            continue
        control = await acp.reopen(acp.unknown_id())
        if control.ok:
            raise MissingInput(
                "resume/load of any never-created id succeeds, so it cannot tell what status did"
            )
        raise Violation(
            f"{label} could be resumed after status calls about it (a fresh never-created id cannot be): status "
            "created it",
            expected="error -32002",
            observed=back.describe(),
        )


@case("status.overlap.answers-by-id", level=Level.MUST, spec=spec.UNKNOWN)
async def each_answer_is_its_own(acp: AcpTarget, details: dict) -> None:
    """Status calls for a live session, a closed one and two never-created ids, interleaved and in
    flight at once beside a session/new: each answer is the one its own session gets alone (a
    -32002 echoes its own request's id), and the new session is `active` right after. A race
    shows only when the calls land inside its window, so the burst runs OVERLAP_ROUNDS times
    (the first answer that is not its own ends the case)."""
    targets = await _sessions_of_each_kind(acp)
    alone = {label: answer_of(await acp.status(sid)) for label, sid in targets.items()}
    labels = {sid: label for label, sid in targets.items()}
    details["alone"] = {label: _word(a) for label, a in alone.items()}
    for round_ in range(1, OVERLAP_ROUNDS + 1):
        details["rounds"] = round_
        ids = list(targets.values()) * (BURST // 2)
        half = len(ids) // 2

        async def new() -> Reply:
            return await acp.call("session/new", {"cwd": acp.cwd, "mcpServers": []})

        calls: list[Any] = [lambda sid=sid: acp.status(sid) for sid in ids]
        replies = await acp.together(*calls[:half], new, *calls[half:])
        made = replies.pop(half)
        # Asked alone once more: a session whose answer changed on its own meanwhile (an eviction,
        # which is the agent's to choose) is not judged by what its calls in flight answered.
        again = {label: answer_of(await acp.status(sid)) for label, sid in targets.items()}
        details["again"] = {k: _word(v) for k, v in again.items()}
        for sid, reply in zip(ids, replies, strict=True):
            _judge_own_answer(sid, reply, labels, alone, again)
        await _made_beside_is_active(acp, made, details)
        alone = again  # the next round's calls are judged by what each session answers now


async def _sessions_of_each_kind(acp: AcpTarget) -> dict[str, str]:
    """A live session, a closed one (where the agent closes) and two never-created ids, by label."""
    targets = {"a live session": await acp.new_session()}
    if acp.advertises("close"):
        closed = await acp.new_session()
        await acp.close(closed)
        targets["a closed session"] = closed
    return targets | {"a never-created id": acp.unknown_id(), "another never-created id": acp.unknown_id()}


def _judge_own_answer(
    sid: str, reply: Reply, labels: dict[str, str], alone: dict[str, str], again: dict[str, str]
) -> None:
    """One call's answer among those in flight: what its session gets alone, before and after (or
    its answer changed on its own), and a -32002 that names no other call's session."""
    label, got = labels[sid], answer_of(reply)
    echoed = (reply.error or {}).get("data") if not reply.ok else None
    echo = echoed.get("sessionId") if isinstance(echoed, dict) else None
    crossed = reply.code == SESSION_NOT_FOUND and echo != sid and echo in labels
    if (got != alone[label] and again[label] == alone[label]) or crossed:
        raise Violation(
            f"among status calls in flight at once, the one for {label} ({sid}) answered "
            f"{reply.describe()}; alone it answers {_word(alone[label])}"
            + (f": the -32002 names {labels[str(echo)]}, another call's session" if crossed else "")
            + ": an answer belongs to its own request's session",
            expected=_word(alone[label])
            + (f" with data.sessionId {sid}" if alone[label] == "unknown" else ""),
            observed=show(reply.result if reply.ok else reply.error),
        )


async def _made_beside_is_active(acp: AcpTarget, made: Reply, details: dict) -> None:
    """The session the session/new among the status calls made reads active right after."""
    new_id = made.result.get("sessionId") if made.ok and isinstance(made.result, dict) else None
    if not isinstance(new_id, str):
        raise NotTestable(f"session/new sent among status calls did not create a session: {made.describe()}")
    fresh = await acp.status(new_id)
    details["new_session"] = _word(answer_of(fresh))
    if answer_of(fresh) != "active":
        raise Violation(
            f"a session created while status calls were in flight reads {fresh.describe()} right after",
            expected=revisions.word("active"),
            observed=show(fresh.result if fresh.ok else fresh.error),
        )


@case(
    "status.overlap.race-close",
    level=Level.MUST,
    spec=spec.NO_SIDE_EFFECTS,
    needs=("status", "close"),
)
async def status_racing_close(acp: AcpTarget, details: dict) -> None:
    """Status calls for a session sent together with its session/close, on both sides of it: any
    answer may come from before the close or after it, but once the close is answered the
    session is not in memory (status neither keeps nor brings it back)."""
    sid = await acp.new_session()

    async def close() -> Reply:
        return await acp.call("session/close", {"sessionId": sid})

    ask: list[Any] = [lambda: acp.status(sid)] * SIDE
    replies = await acp.together(*ask, close, *ask)
    closed = replies.pop(SIDE)
    details["during"] = [_word(answer_of(r)) for r in replies]
    if not closed.ok:
        raise NotTestable(f"session/close sent among status calls failed: {closed.describe()}")
    after = await acp.status(sid)
    details["after"] = _word(answer_of(after))
    if answer_of(after) != "active":
        return
    control = await acp.new_session()
    await acp.close(control)
    if answer_of(await acp.status(control)) == "active":
        raise NotTestable(
            "a session closed with no status call around it reads active too: close does not take a session "
            "out of memory (see status.inactive.after-close)"
        )
    raise Violation(
        f"status calls sent together with session/close left the session in memory: once the close was "
        f"answered, status says {after.describe()}, while a session closed alone does not",
        expected="not active: " + revisions.word("inactive") + " (or -32002)",
        observed={"around the close": details["during"], "after": details["after"]},
    )


@case("status.overlap.race-prompt", level=Level.MUST, spec=spec.ACTIVE)
async def status_beside_prompt(acp: AcpTarget, details: dict) -> None:
    """Status calls for a session sent together with a prompt on it, and with its cancel: the
    session is in memory all along (while its turn starts, works or is cancelled), so every
    answer is `active`. The prompt asks the user's permission where the agent does, and the suite
    holds its answer until every status call is answered: the turn cannot end before them. A turn
    that does not end within --turn-timeout leaves the case not testable, once the status calls'
    answers are judged."""
    sid = await acp.new_session()
    acp.take_turn()  # before any call of the overlap: a prompt it may not send leaves none unanswered
    mark = len(acp.peer.notifications)
    statuses, prompted = await _statuses_beside_prompt_and_cancel(acp, sid)
    answers = details["during"] = [_word(answer_of(r)) for r in statuses]
    stalled = await _turn_stalled(acp, sid, prompted, mark, details)
    after = None if stalled is not None else await acp.status(sid)
    if after is not None:
        details["after"] = _word(answer_of(after))
    if any(answer_of(r) != "active" for r in statuses):
        raise Violation(
            f"status calls sent together with a prompt and its cancel answered {', '.join(answers)}: a session "
            "with a turn starting, running or cancelled is in memory",
            expected=[revisions.word("active")] * len(answers),
            observed={
                "beside the prompt": answers,
                "afterwards": details.get("after", "(the turn did not end)"),
            },
        )
    if stalled is not None:  # what the turn left behind cannot be judged: not testable
        raise stalled
    assert after is not None
    if answer_of(after) != "active":  # the turn is over: an eviction is the agent's to choose
        await check_implied(acp, sid, after, "after a prompt and its cancel that status calls overlapped")


async def _statuses_beside_prompt_and_cancel(acp: AcpTarget, sid: str) -> tuple[list[Reply], dict[str, Any]]:
    """The prompt on the wire first, then status calls on both sides of its cancel, the prompt's
    permission request held until they are answered: the status replies, and the prompt's reply
    (or the Unanswered it stalled on, under "stalled")."""
    peer = acp.peer
    prompted: dict[str, Any] = {}

    async def prompt() -> None:
        try:
            prompted["reply"] = await acp.prompt(
                sid, PERMISSION, wait=False, timeout=acp.turn_timeout, taken=True
            )
        except Unanswered as stalled:  # the status calls' answers are judged first: they are evidence
            prompted["stalled"] = stalled

    async def cancel() -> None:
        await peer.notify("session/cancel", {"sessionId": sid})

    ask: list[Any] = [lambda: acp.status(sid)] * SIDE
    replies: list[Any] = []  # bound here too: a task group may end quietly, for all a type checker knows
    async with peer.holding({"session/request_permission"}), anyio.create_task_group() as tg:
        tg.start_soon(prompt)  # on the wire first: the status calls follow it at once
        replies = await acp.together(*ask, cancel, *ask)
        await peer.release()
    return [r for r in replies if isinstance(r, Reply)], prompted


async def _turn_stalled(
    acp: AcpTarget, sid: str, prompted: dict[str, Any], mark: int, details: dict
) -> Unanswered | None:
    """Why the prompt's turn did not end in time, or None: its answer never came, or (v2) no
    `idle` state_update after it within --turn-timeout."""
    stalled: Unanswered | None = prompted.get("stalled")
    reply = prompted.get("reply")
    if reply is not None:
        details["prompt"] = reply.describe()
        if acp.protocol == 2 and reply.ok and await acp.wait_turn_end(sid, since=mark) is None:
            stalled = Unanswered(
                "session/prompt",
                reply.id,
                acp.turn_timeout,
                clock="turn",
                why=f"its turn reported no ending `idle` state_update within {acp.turn_timeout:g} s (--turn-timeout)",
            )
    return stalled

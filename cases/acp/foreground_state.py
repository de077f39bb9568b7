"""ACP v2 only: the foreground `state` snapshot that session/status may carry (--protocol 2).

The snapshot is the `StateUpdate` the agent would send now: `running` while a turn works,
`requires_action` while it waits on the user (the suite holds its answer to
`session/request_permission`), `idle` after it, possibly with the last `stopReason`. Reading it
must send nothing: it is not a new transition or completion.
"""

from pathlib import Path
from typing import Any

import anyio
from conformance.cases.acp import spec

from conformance.core.outcomes import MissingInput, NotApplicable, NotTestable, Problems, Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.controls import notifications_from_status
from conformance.targets.acp.expect import is_extension, show
from conformance.targets.acp.target import AcpTarget, session_of, state_update
from conformance.transport.peer import Reply

V2 = ("status", "v2")
KNOWN_STATES = frozenset({"running", "idle", "requires_action", "unknown"})
SLOW = "[slow] a turn that takes a while"
PERMISSION = "[permission] a turn that needs the user's permission"


def reported_state(reply: Reply) -> str | None:
    """The snapshot's state name, or None when the agent is not reporting foreground state."""
    result = reply.result if reply.ok and isinstance(reply.result, dict) else {}
    state = result.get("state")
    if isinstance(state, dict) and isinstance(state.get("state"), str):
        return state["state"]
    return None


async def _state_or_skip(acp: AcpTarget, sid: str, context: str) -> tuple[str, Reply]:
    reply = await acp.status(sid)
    if not reply.ok:
        raise NotTestable(f"{context}: session/status failed: {reply.describe()}")
    state = reported_state(reply)
    if state is None:
        raise NotApplicable("the agent is not reporting foreground state (see status.state.reported)")
    return state, reply


async def _expect_snapshot(acp: AcpTarget, sid: str, expected: str, situation: str, details: dict) -> None:
    state, reply = await _state_or_skip(acp, sid, f"status while {situation}")
    details["snapshot"] = reply.result
    if state != expected:
        raise Violation(
            f"{situation}, but the status snapshot says {state!r}",
            expected=expected,
            observed=show(reply.result),
        )


@case("status.state.reported", level=Level.SHOULD, spec=spec.STATE_NOT_REPORTED, needs=V2)
async def state_reported_when_in_memory(acp: AcpTarget, details: dict) -> None:
    """A session in memory gets a well-formed `state` (omitted, null or malformed: not reported)."""
    sid = await acp.new_session()
    reply = await acp.status(sid)
    if not reply.ok:
        raise NotTestable(f"session/status of a new session failed: {reply.describe()}")
    details["result"] = reply.result
    if reported_state(reply) is None:
        raw = reply.result.get("state", "(omitted)") if isinstance(reply.result, dict) else "(no result)"
        raise Violation(
            f"no foreground state for a session in memory: state is {show(raw)}; clients must read that as "
            "'not reporting', never as idle",
            expected='"state": {"state": "idle"} (or running / requires_action)',
            observed=show(raw),
        )


@case("status.state.known-values", level=Level.SHOULD, spec=spec.STATE_OPTIONAL, needs=V2)
async def state_values_are_known(acp: AcpTarget, details: dict) -> None:
    """The snapshot's state is running, idle, requires_action or unknown (others are named, `_` ones too)."""
    sid = await acp.new_session()
    seen = {"new": (await _state_or_skip(acp, sid, "status of a new session"))[0]}
    details["states"] = seen
    odd = Problems(lambda _: _odd_states(seen))
    if seen["new"] not in KNOWN_STATES:
        odd.add(None, seen["new"])
    with odd.kept(details):  # a turn that did not end keeps the state a new session already showed
        await acp.prompt(sid, "hello")
        seen["after a turn"] = (await _state_or_skip(acp, sid, "status after a turn"))[0]
    if any(v not in KNOWN_STATES for v in seen.values()):
        raise _odd_states(seen)


def _odd_states(seen: dict[str, str]) -> Violation:
    """The finding about the states ``seen`` outside ACP's (one of them is): one a client cannot
    tell the meaning of, else an extension (`_`-prefixed) no client knows."""
    unknown = {k: v for k, v in seen.items() if v not in KNOWN_STATES and not is_extension(v)}
    if unknown:
        return Violation(
            f"unrecognised foreground state {unknown}: values that do not begin with `_` are reserved for "
            "ACP, and clients cannot tell what they mean",
            expected=sorted(KNOWN_STATES),
            observed=unknown,
        )
    extensions = {k: v for k, v in seen.items() if is_extension(v)}
    # Allowed for implementation-specific extensions, but no client knows them: worth a warning.
    return Violation(
        f"extension foreground state {extensions}: allowed (`_`-prefixed), but a client that does not "
        "know it sees a state it cannot show",
        expected=sorted(KNOWN_STATES),
        observed=extensions,
    )


@case(
    "status.state.idle-after-turn",
    level=Level.MUST,
    spec=spec.STATE_SNAPSHOT,
    needs=V2,
    # a refused prompt starts no work, and a cancelled turn leaves none: "MUST report `idle` when no … remains"
    rules=("refused-prompt", "after-cancel"),
)
async def idle_after_turn(acp: AcpTarget, details: dict) -> None:
    """After the turn's `idle` state_update, the snapshot is `idle` too; and after a prompt the
    agent then refuses (an empty one), it is still `idle` unless the session's state_updates
    reported foreground work starting (then once they report it ended)."""
    sid = await acp.new_session()
    mark = len(acp.peer.notifications)
    ack = await acp.prompt(sid, "hello", wait=False)
    if not ack.ok:
        raise MissingInput(f"session/prompt failed: {ack.describe()}")
    if await acp.wait_state(sid, "idle", since=mark) is None:
        raise MissingInput("the turn never reported `idle` in a state_update (within --turn-timeout)")
    await _expect_snapshot(acp, sid, "idle", "the turn reported idle", details)
    await _idle_after_refused_prompt(acp, sid, details)
    await _idle_after_cancel(acp, await acp.new_session(), details)


# Seconds the snapshot of a cancelled turn is watched after its `idle` update (at most --hold),
# and between two looks.
CANCEL_WATCH = 1.0
CANCEL_LOOK = 0.2


async def _idle_after_cancel(acp: AcpTarget, sid: str, details: dict) -> None:
    """A turn cancelled while it works (session/cancel right after its prompt is acknowledged):
    once the session's updates report `idle`, the snapshot is `idle` right after and for a while
    (a cancel path that sends the update but leaves the snapshot `running`)."""
    mark = len(acp.peer.notifications)
    ack = await acp.prompt(sid, "[slow] a turn the client cancels", wait=False)
    if not ack.ok:
        details["unjudged_after_cancel"] = f"session/prompt failed: {ack.describe()}"
        return
    await acp.peer.notify("session/cancel", {"sessionId": sid})
    if await acp.wait_state(sid, "idle", since=mark) is None:
        details["unjudged_after_cancel"] = "the cancelled turn reported no `idle` within --turn-timeout"
        return
    watch = min(CANCEL_WATCH, acp.harness.config.hold_seconds)
    until = anyio.current_time() + watch
    seen: list[str | None] = []
    while True:
        snapshot = await acp.status(sid)
        if seen and snapshot.ok and reported_state(snapshot) is None:
            break  # no snapshot any more (an idle session evicted, say): nothing running either
        state, snapshot = await _state_or_skip(acp, sid, "status after a cancelled turn reported idle")
        seen.append(state)
        if state in BUSY:
            raise Violation(
                f"a turn cancelled while it worked reported `idle` in its state_update, and the status snapshot "
                f"{CANCEL_LOOK * (len(seen) - 1):g} s later says {state!r}",
                expected="idle",
                observed={"snapshots": seen, "last": show(snapshot.result)},
                rule="after-cancel",
            )
        if anyio.current_time() >= until:
            break
        await anyio.sleep(CANCEL_LOOK)
    details["after_cancel"] = seen


async def _idle_after_refused_prompt(acp: AcpTarget, sid: str, details: dict) -> None:
    """An empty prompt (no content block) on the idle session. Refused, with no state_update of
    the session after it, nothing started: the snapshot stays `idle`. Accepted, or with work
    reported, the snapshot is judged once the session's updates report `idle` again."""
    acp.take_turn()  # an agent may accept it: a turn, on the turn clock
    mark = len(acp.peer.notifications)
    reply = await acp.peer.request(
        "session/prompt", {"sessionId": sid, "prompt": []}, timeout=acp.turn_timeout, clock="turn"
    )
    details["empty_prompt"] = reply.describe()
    if (reply.ok or _states_since(acp, sid, mark)) and not await _work_ended(acp, sid, mark, details):
        return
    state, snapshot = await _state_or_skip(acp, sid, "status after an empty prompt")
    if state in BUSY and not _states_since(acp, sid, mark):
        # Over Streamable HTTP a state_update may trail the answer, on another stream.
        await acp.quiet({sid})
        if _states_since(acp, sid, mark):
            if not await _work_ended(acp, sid, mark, details):
                return
            state, snapshot = await _state_or_skip(acp, sid, "status after an empty prompt")
    details["snapshot_after_empty_prompt"] = snapshot.result
    if state in BUSY:
        reported = _states_since(acp, sid, mark)
        raise Violation(
            f"after an empty prompt the agent {'accepted' if reply.ok else 'refused'}, the status snapshot says "
            f"{state!r}, while the session's state_updates since that prompt "
            + (f"said {', '.join(map(repr, reported))}" if reported else "reported no foreground work")
            + ": no foreground activity remains, so the snapshot must be idle",
            expected="idle",
            observed={"prompt": reply.describe(), "snapshot": show(snapshot.result)},
            rule="refused-prompt",
        )


# The snapshots that say foreground work is going on.
BUSY = ("running", "requires_action")


async def _work_ended(acp: AcpTarget, sid: str, since: int, details: dict) -> bool:
    """Whether the session reported `idle` after notification ``since`` (waited for on the turn
    clock); the rule is left unjudged when it did not."""
    if await acp.wait_state(sid, "idle", since=since) is not None:
        return True
    details["unjudged"] = {
        "refused-prompt": "what the empty prompt started reported no `idle` within --turn-timeout"
    }
    return False


def _states_since(acp: AcpTarget, sid: str, since: int) -> list[str]:
    """The states the session's state_updates after notification ``since`` reported."""
    return [
        str(update.get("state"))
        for note in acp.peer.notifications[since:]
        if (update := state_update(note.params)) is not None and session_of(note.params) == sid
    ]


@case("status.state.running-during-turn", level=Level.MUST, spec=spec.STATE_SNAPSHOT, needs=V2)
async def running_during_turn(acp: AcpTarget, details: dict) -> None:
    """While a turn works (before its `idle` update), the snapshot is not `idle`, whatever content
    the prompt carried (text, then text with a resource_link). A status sent while the turn worked
    and answered `idle` only once it had ended is evidence too: the turn went on long past the
    round trip status takes alone, so status waited for it."""
    for form, blocks in _prompt_forms(acp).items():
        for attempt in (1, 2):
            found = await _idle_while_running(acp, details, blocks)
            if found is None:
                break
            late, message = found
            if not late or attempt == 2:
                raise Violation(
                    f"{message} (a prompt of {form})",
                    expected="running (or requires_action)",
                    observed=show(details["snapshot"]),
                )
            # An answer that came only after the turn ended: looked at once more, so one stall of a
            # loaded machine, right across the turn's end, cannot fail a conforming agent.
            details["first_attempt"] = message


def _prompt_forms(acp: AcpTarget) -> dict[str, tuple[dict[str, Any], ...]]:
    """The content a turn's prompt carries: text, then text with a resource_link (both are the
    baseline every agent supports in prompts), a file of the session's working directory."""
    notes = Path(acp.cwd) / "conformance-notes.txt"
    notes.write_text("notes for a turn that takes a while\n", encoding="utf-8")
    link = {"type": "resource_link", "uri": notes.as_uri(), "name": notes.name, "mimeType": "text/plain"}
    return {"text": (), "text and a resource_link": (link,)}


async def _idle_while_running(
    acp: AcpTarget, details: dict, blocks: tuple[dict[str, Any], ...] = ()
) -> tuple[bool, str] | None:
    """One turn with status asked while it works: None when the snapshot is right, else (whether
    the answer came only after the turn ended, the finding)."""
    sid = await acp.new_session()
    alone = [await acp.status(sid) for _ in range(3)]
    round_trip = max(r.elapsed for r in alone)
    mark = len(acp.peer.notifications)
    ack = await acp.prompt(sid, SLOW, wait=False, blocks=blocks)
    if not ack.ok:
        raise MissingInput(f"session/prompt failed: {ack.describe()}")
    ended_before = _ended(acp, sid, mark)
    sent = acp.peer.transcript.mark()
    reply = await acp.status(sid)
    ended = _ended(acp, sid, mark)
    if not ended and reported_state(reply) == "idle":
        # Over Streamable HTTP the idle update and the status answer travel on different streams,
        # unordered: give a just-finished turn's update a moment before calling the answer wrong.
        await anyio.sleep(max(acp.settle, 0.1))
        ended = _ended(acp, sid, mark)
    await acp.wait_state(sid, "idle", since=mark)
    state = reported_state(reply)
    lag = _seconds_until_idle(acp, sid, mark, sent)
    details.update(
        snapshot=reply.result,
        turn_ended_before_status=ended_before,
        turn_ended_before_answer=ended,
        status_round_trip_alone=round(round_trip, 4),
    )
    if state is None:
        raise NotApplicable("the agent is not reporting foreground state (see status.state.reported)")
    if ended_before:
        raise NotApplicable("the turn ended before status could be sent: no window to see it running")
    if state != "idle":
        return None
    if not ended:
        return False, "status said idle while the turn was still working (its idle state_update came later)"
    details["turn_went_on_after_status_was_sent"] = None if lag is None else round(lag, 4)
    if lag is None or lag < max(LATE_FLOOR, LATE_FACTOR * round_trip):
        raise NotApplicable(
            "the turn ended within a status round trip of status being sent: no window to see it running"
        )
    return True, (
        f"status was sent while the turn worked and answered idle only after the turn's idle state_update, which "
        f"came {lag * 1000:.0f} ms after status was sent (status alone answers within {round_trip * 1000:.1f} ms): "
        "status waited for the turn instead of reporting it running"
    )


# A status answered only after the turn ended shows it waited for the turn when the turn went on
# this long after status was sent: several times its round trip alone, and at least this floor.
LATE_FLOOR = 0.1
LATE_FACTOR = 10


def _seconds_until_idle(acp: AcpTarget, sid: str, since: int, sent_mark: int) -> float | None:
    """Seconds from the status request (the first frame sent at ``sent_mark``) to the turn's idle
    state_update, as the transcript timed them."""
    sent = next((e for e in acp.peer.transcript.since(sent_mark) if e.direction == "send"), None)
    for note in acp.peer.notifications[since:]:
        update = state_update(note.params)
        if update and session_of(note.params) == sid and update.get("state") == "idle":
            entry = next((e for e in acp.peer.transcript.since(note.index) if e.index == note.index), None)
            if sent is None or entry is None:
                return None
            return entry.t - sent.t
    return None


@case("status.state.requires-action", level=Level.SHOULD, spec=spec.REQUIRES_ACTION, needs=V2)
async def requires_action_while_asking(acp: AcpTarget, details: dict) -> None:
    """While the turn waits on session/request_permission (the suite holds its answer), the
    snapshot is `requires_action`: a SHOULD, "when the foreground workflow as a whole cannot
    progress". `running` is right while other foreground work goes on beside the request ("If
    other foreground work can progress, the state remains `running`"): it passes where the
    session's updates show that work going on while the request waits, and warns where they
    show nothing."""
    sid = await acp.new_session()
    peer = acp.peer
    mark = len(peer.notifications)
    held_before = await _ask_permission(acp, sid)
    try:
        asked = await _permission_held(acp, sid, mark, held_before)
        state, reply = await _state_or_skip(acp, sid, "status while the turn waits on the user's permission")
        details["snapshot"] = reply.result
        if state == "requires_action":
            return
        if state == "running":
            work = await _work_beside(acp, sid, asked)
            details["updates_while_waiting"] = work
            if work:
                return  # other foreground work goes on: `running` is what the schema asks for
        raise Violation(
            f"while the turn waits on the user's permission, the status snapshot says {state!r}"
            + (
                ", and the session sent no update while the request waited (no other work went on)"
                if state == "running"
                else ""
            ),
            expected="requires_action (or running while other foreground work goes on)",
            observed=show(reply.result),
        )
    finally:
        await peer.release()
        await acp.wait_state(sid, "idle", since=mark)


# How long a `running` snapshot beside a pending permission request is watched for the other
# foreground work that makes `running` right (an update of the session's that is no state_update).
WORK_WATCH = 1.0


async def _ask_permission(acp: AcpTarget, sid: str) -> int:
    """Prompt a turn that asks the user's permission, holding the request when it comes: the
    requests held before it. Not testable when the prompt is refused: no turn runs, so none is
    waited for (at a model's speed, a whole --turn-timeout)."""
    peer = acp.peer
    peer.hold_methods = {"session/request_permission"}  # before the prompt: the request may come first
    held_before = len(peer.held)
    try:
        ack = await acp.prompt(sid, PERMISSION, wait=False)
    except BaseException:
        await peer.release()  # the caller's finally, which releases, is not entered yet
        raise
    if not ack.ok:
        await peer.release()
        raise MissingInput(f"session/prompt failed: {ack.describe()}")
    return held_before


async def _permission_held(acp: AcpTarget, sid: str, mark: int, held_before: int) -> int:
    """The notification count when the turn's permission request arrived (held). n/a when the
    agent asks none within the turn clock."""
    peer = acp.peer
    with anyio.move_on_after(acp.harness.config.turn_timeout):
        while len(peer.held) == held_before and not _ended(acp, sid, mark) and peer.exited is None:
            await anyio.sleep(0.01)
    if len(peer.held) == held_before:
        raise NotApplicable("the agent asked no permission for this prompt, so it never waited on the user")
    return len(peer.notifications)


async def _work_beside(acp: AcpTarget, sid: str, since: int) -> int:
    """Updates of the session that are not state_updates, sent while its permission request is
    held (watched up to WORK_WATCH): the foreground work going on beside the request."""

    def count() -> int:
        return sum(
            1
            for n in acp.peer.notifications[since:]
            if n.method == "session/update" and session_of(n.params) == sid and state_update(n.params) is None
        )

    with anyio.move_on_after(WORK_WATCH):
        while not count():
            await anyio.sleep(0.02)
    return count()


@case("status.state.own-last-update", level=Level.MUST, spec=spec.STATE_SNAPSHOT, needs=V2)
async def snapshot_is_the_sessions_own(acp: AcpTarget, details: dict) -> None:
    """While one session's turn waits on the user's permission (the suite holds its answer), each
    session's snapshot is the state its own state_updates last reported: the waiting session's,
    and `idle` for a sibling whose turn ended. Never another session's, nor the last one the
    connection carried."""
    mark = len(acp.peer.notifications)
    (idle,) = await _turned_sessions(acp, 1)
    if await acp.wait_turn_end(idle, since=mark) is None:
        raise MissingInput("the turn's idle state_update did not arrive (see status.state.idle-after-turn)")
    waiting = await acp.new_session()
    mark = len(acp.peer.notifications)
    held_before = await _ask_permission(acp, waiting)
    try:
        await _permission_held(acp, waiting, mark, held_before)
        sent = len(acp.peer.notifications)
        replies = await acp.statuses([waiting, idle])
        await acp.quiet({waiting})  # an update of a change the snapshot already saw may come just after it
        found, judged = [], {}
        for label, sid, reply in (("waiting on the user", waiting, replies[0]), ("idle", idle, replies[1])):
            state = reported_state(reply)
            own = _own_states(acp, sid, sent)
            judged[label] = {"snapshot": state, "its own state_updates": sorted(own)}
            if state is not None and own and state not in own:
                found.append((label, sid, state, own))
        details["sessions"] = judged
        if all(v["snapshot"] is None for v in judged.values()):
            raise NotApplicable("the agent is not reporting foreground state (see status.state.reported)")
        if found:
            label, sid, state, own = found[0]
            raise Violation(
                f"the status snapshot of the session {label} ({sid}) says {state!r}, while its own state_updates last "
                f"said {' or '.join(repr(o) for o in sorted(own))} (one session's turn waits on the user, the other's has "
                "ended): the snapshot must be that session's own state",
                expected=sorted(own),
                observed=state,
            )
    finally:
        await acp.peer.release()
        await acp.wait_state(waiting, "idle", since=mark)


def _own_states(acp: AcpTarget, sid: str, sent: int) -> set[str]:
    """The states a snapshot taken while status was in flight may rightly say: the session's last
    state_update before the request, and any it sent after."""
    last, later = None, set()
    for n, note in enumerate(acp.peer.notifications):
        update = state_update(note.params)
        if update is None or session_of(note.params) != sid or not isinstance(update.get("state"), str):
            continue
        if n < sent:
            last = update["state"]
        else:
            later.add(update["state"])
    return later | ({last} if last is not None else set())


@case("status.state.no-state-update", level=Level.MUST, spec=spec.STATE_NOT_A_TRANSITION, needs=V2)
async def snapshot_sends_nothing(acp: AcpTarget, details: dict) -> None:
    """Status of an idle session (after a turn) sends no state_update: a snapshot is not a completion.
    What the agent sends on its own after a turn reaches a control session treated alike too."""
    turn = len(acp.peer.notifications)
    sid, control = await _turned_sessions(acp, 2)
    # v2 answers the prompt at once; the turn's updates, its idle state last, stream after it.
    for each in (sid, control):
        if await acp.wait_turn_end(each, since=turn) is None:
            raise MissingInput(
                "the turn's idle state_update did not arrive within --turn-timeout (see status.state.idle-after-turn)"
            )
    blamed, _ = await notifications_from_status(acp, {sid: control}, calls=5)
    sent = [n for n in blamed if session_of(n.params) == sid]
    details["notifications"] = len(sent)
    if sent:
        kinds = sorted({(state_update(n.params) or {}).get("sessionUpdate", n.method) for n in sent})
        raise Violation(
            f"status calls on an idle session sent {len(sent)} notification(s) ({', '.join(kinds)}) that a "
            "control session treated alike did not get: clients would count a snapshot as a new transition "
            "or completion",
            expected="no notification",
            observed=show(sent[0].params),
        )


async def _turned_sessions(acp: AcpTarget, count: int) -> list[str]:
    """``count`` new sessions, each given one turn. Not testable when a prompt is refused: no
    turn runs, so no turn's end is waited for."""
    sids = [await acp.new_session() for _ in range(count)]
    for sid in sids:
        reply = await acp.prompt(sid, "hello")
        if not reply.ok:
            raise MissingInput(f"session/prompt failed: {reply.describe()}")
    return sids


def _ended(acp: AcpTarget, sid: str, since: int) -> bool:
    return acp.state_reached(sid, "idle", since=since) is not None

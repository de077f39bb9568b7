"""ACP v2 only: the foreground `state` snapshot that session/status may carry (--protocol 2).

The snapshot is the `StateUpdate` the agent would send now: `running` while a turn works,
`requires_action` while it waits on the user (the suite holds its answer to
`session/request_permission`), `idle` after it, possibly with the last `stopReason`. Reading it
must send nothing: it is not a new transition or completion.
"""

import anyio
from conformance.cases.acp import spec

from conformance.core.outcomes import MissingInput, NotApplicable, NotTestable, Violation
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
    await acp.prompt(sid, "hello")
    seen["after a turn"] = (await _state_or_skip(acp, sid, "status after a turn"))[0]
    details["states"] = seen
    unknown = {k: v for k, v in seen.items() if v not in KNOWN_STATES and not is_extension(v)}
    if unknown:
        raise Violation(
            f"unrecognised foreground state {unknown}: values that do not begin with `_` are reserved for "
            "ACP, and clients cannot tell what they mean",
            expected=sorted(KNOWN_STATES),
            observed=unknown,
        )
    extensions = {k: v for k, v in seen.items() if is_extension(v)}
    if extensions:
        # Allowed for implementation-specific extensions, but no client knows them: worth a warning.
        raise Violation(
            f"extension foreground state {extensions}: allowed (`_`-prefixed), but a client that does not "
            "know it sees a state it cannot show",
            expected=sorted(KNOWN_STATES),
            observed=extensions,
        )


@case("status.state.idle-after-turn", level=Level.MUST, spec=spec.STATE_SNAPSHOT, needs=V2)
async def idle_after_turn(acp: AcpTarget, details: dict) -> None:
    """After the turn's `idle` state_update, the snapshot is `idle` too."""
    sid = await acp.new_session()
    mark = len(acp.peer.notifications)
    await acp.prompt(sid, "hello", wait=False)
    if await acp.wait_state(sid, "idle", since=mark) is None:
        raise MissingInput("the turn never reported `idle` in a state_update (within --turn-timeout)")
    await _expect_snapshot(acp, sid, "idle", "the turn reported idle", details)


@case("status.state.running-during-turn", level=Level.MUST, spec=spec.STATE_SNAPSHOT, needs=V2)
async def running_during_turn(acp: AcpTarget, details: dict) -> None:
    """While a turn works (before its `idle` update), the snapshot is not `idle`."""
    sid = await acp.new_session()
    mark = len(acp.peer.notifications)
    ack = await acp.prompt(sid, SLOW, wait=False)
    if not ack.ok:
        raise MissingInput(f"session/prompt failed: {ack.describe()}")
    reply = await acp.status(sid)
    ended = _ended(acp, sid, mark)
    if not ended and reported_state(reply) == "idle":
        # Over Streamable HTTP the idle update and the status answer travel on different streams,
        # unordered: give a just-finished turn's update a moment before calling the answer wrong.
        await anyio.sleep(max(acp.settle, 0.1))
        ended = _ended(acp, sid, mark)
    await acp.wait_state(sid, "idle", since=mark)
    state = reported_state(reply)
    details.update(snapshot=reply.result, turn_ended_before_status=ended)
    if state is None:
        raise NotApplicable("the agent is not reporting foreground state (see status.state.reported)")
    if ended:
        raise NotApplicable("the turn ended before the status answer: no window to see it running")
    if state == "idle":
        raise Violation(
            "status said idle while the turn was still working (its idle state_update came later)",
            expected="running (or requires_action)",
            observed=show(reply.result),
        )


@case("status.state.requires-action", level=Level.MUST, spec=spec.STATE_SNAPSHOT, needs=V2)
async def requires_action_while_asking(acp: AcpTarget, details: dict) -> None:
    """While the agent waits on session/request_permission (the suite holds its answer), the
    snapshot is `requires_action`."""
    sid = await acp.new_session()
    peer = acp.peer
    peer.hold_methods = {"session/request_permission"}
    mark = len(peer.notifications)
    try:
        ack = await acp.prompt(sid, PERMISSION, wait=False)
        if not ack.ok:
            raise MissingInput(f"session/prompt failed: {ack.describe()}")
        with anyio.move_on_after(acp.turn_timeout):  # a model decides to ask: the turn clock
            while not peer.held and not _ended(acp, sid, mark):
                await anyio.sleep(0.01)
        if not peer.held:
            raise NotApplicable(
                "the agent asked no permission for this prompt, so it never waited on the user"
            )
        await _expect_snapshot(
            acp, sid, "requires_action", "the agent waits on session/request_permission", details
        )
    finally:
        await peer.release()
        await acp.wait_state(sid, "idle", since=mark)


@case("status.state.no-state-update", level=Level.MUST, spec=spec.STATE_NOT_A_TRANSITION, needs=V2)
async def snapshot_sends_nothing(acp: AcpTarget, details: dict) -> None:
    """Status of an idle session (after a turn) sends no state_update: a snapshot is not a completion.
    What the agent sends on its own after a turn reaches a control session treated alike too."""
    turn = len(acp.peer.notifications)
    sid, control = await acp.prompted_sessions(2)
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


def _ended(acp: AcpTarget, sid: str, since: int) -> bool:
    return acp.state_reached(sid, "idle", since=since) is not None

"""Status while a turn is in progress: the session is in memory, and asking changes nothing.

The suite holds its answer to the agent's `session/request_permission` (sent for a prompt that
contains "[permission]"), so a turn stays in progress for as long as the case needs. An agent
that asks no permission for such a prompt leaves no turn to ask about: n/a, not a pass. Whether
status touched the turn is judged against a control turn on another session, run the same way
without status calls (their stop reasons must agree).
"""

from __future__ import annotations

from typing import Any

import anyio
from conformance.cases.acp import spec
from conformance.cases.acp.implied import answer_of

from conformance.core import revisions
from conformance.core.outcomes import MissingInput, NotApplicable, Unanswered, Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.expect import show
from conformance.targets.acp.target import AcpTarget

PERMISSION = "[permission] a turn that needs the user's permission"
STATUS_CALLS = 3


async def held_turn(
    acp: AcpTarget, sid: str, during: Any = None, *, got: dict[str, Any] | None = None, longer: float = 0.0
) -> tuple[str | None, Any]:
    """Run a turn that waits on a held permission request; call ``during()`` while it waits.
    Returns the turn's stop reason (None: the agent asked no permission; NOT_ENDED, NO_REASON or
    FAILED + the answer where no stop reason was seen) and what ``during`` returned. ``got`` holds
    "ended" once the turn ended (what ``during`` may look at); ``longer``: seconds ``during`` may
    take beyond the clock of a turn that waits on status calls."""
    peer = acp.peer
    got = {} if got is None else got
    stalled: list[Unanswered] = []
    mark = len(peer.notifications)
    asked = False  # bound here too: a task group may end quietly, for all a type checker knows
    held = peer.holding({"session/request_permission"})
    async with held as held_before, anyio.create_task_group() as tg:
        tg.start_soon(_permission_turn, acp, sid, mark, got, longer)
        asked = await _asked_permission(acp, held_before, got)
        if asked and during is not None:
            try:
                got["during"] = await during()
            except Unanswered as exc:  # re-raised below, once the turn is let go
                stalled.append(exc)
                tg.cancel_scope.cancel()
        await peer.release()
    if stalled:
        first = stalled[0]
        raise Unanswered(
            first.method,
            first.request_id,
            first.limit,
            params=first.params,
            why=f"{first.why}, while the session's turn waited on the user's permission (does status wait for the turn?)",
        )
    if not asked:
        return None, None
    return await _stop_reason(acp, sid, got, mark), got.get("during")


async def _permission_turn(acp: AcpTarget, sid: str, mark: int, got: dict[str, Any], longer: float) -> None:
    """The prompt that asks permission, into ``got``: its reply, its stop reason, and that it ended."""
    # The turn clock, and more: the turn also waits on a permission the suite holds while
    # status is asked.
    clock = acp.turn_timeout + 3 * acp.harness.config.timeout + longer
    reply = await acp.prompt(sid, PERMISSION, wait=False, timeout=clock)
    got["reply"] = reply
    if acp.protocol == 2 and reply.ok:  # the idle update that ends the turn carries its stopReason
        update = await acp.wait_turn_end(sid, since=mark)
        got["stop"] = NOT_ENDED if update is None else update.get("stopReason")
    elif reply.ok and isinstance(reply.result, dict):
        got["stop"] = reply.result.get("stopReason")
    got["ended"] = True


async def _asked_permission(acp: AcpTarget, held_before: int, got: dict[str, Any]) -> bool:
    """Whether the agent asked the user's permission (the suite now holds the request) before the
    turn ended or the turn clock ran out."""
    peer = acp.peer
    with anyio.move_on_after(acp.turn_timeout):
        # Until the permission request, or the turn's end: in v2 the prompt's answer comes
        # at once and the permission request after it (a model decides to ask: the turn clock).
        while len(peer.held) == held_before and "ended" not in got:
            await anyio.sleep(0.01)
    return len(peer.held) > held_before


async def _stop_reason(acp: AcpTarget, sid: str, got: dict[str, Any], mark: int) -> str:
    """The ended turn's stop reason, or what stood in for one (FAILED, NOT_ENDED, NO_REASON)."""
    reply = got.get("reply")
    if reply is None or not reply.ok:
        # What a turn that failed answered: the control turn's failure makes a case not testable
        # (the status specs say nothing of how a turn answers once its permission request is
        # answered); a failure only where status was asked is status's doing.
        return FAILED + (reply.describe() if reply else "no answer")
    stop = got.get("stop")
    if stop == NOT_ENDED:
        stop = await _late_end(acp, sid, mark)
    return NO_REASON if stop is None else str(stop)


NOT_ENDED = "(did not end)"
NO_REASON = "(ended without a stop reason)"
FAILED = "(failed) "
UNSEEN = (NOT_ENDED, NO_REASON)


async def _late_end(acp: AcpTarget, sid: str, since: int) -> str | None:
    """v2: a turn whose idle update did not come within --timeout, waited for up to the turn
    clock (--turn-timeout): its stop reason, None if it ended without one, NOT_ENDED if it never
    did."""
    with anyio.move_on_after(acp.harness.config.turn_timeout) as clock:
        while acp.peer.exited is None:
            ending = acp.state_reached(sid, "idle", since=since, ending=True)
            if ending is not None:
                return str(ending.get("stopReason"))
            if acp.state_reached(sid, "idle", since=since) is not None and await acp.quiet({sid}):
                return None
            acp.end_wait_on_evidence(clock, sid)
            await anyio.sleep(0.05)
    return NOT_ENDED


async def _control_turn(acp: AcpTarget) -> str:
    """The stop reason of a turn on another session, run the same way with nothing during it:
    what a turn the case touched must end with. n/a when the agent asks no permission; not
    testable when that turn fails or shows no stop reason."""
    control_stop, _ = await held_turn(acp, await acp.new_session())
    if control_stop is None:
        raise NotApplicable(
            "the agent asked no permission for a '[permission]' prompt, so no turn stays in progress"
        )
    if control_stop.startswith(FAILED):
        raise MissingInput(
            f"the turn waiting on a permission request failed: {control_stop.removeprefix(FAILED)}"
        )
    return control_stop


UNSEEN_REASON = (
    "a turn's stop reason was not seen: it did not end within the turn clock, or (v2) its idle update "
    "carried no stopReason (which it only SHOULD)"
)


def turn_touched(stop: str, control_stop: str) -> str | None:
    """How the turn status was asked about ended unlike the control turn, which ended with a stop
    reason (a failure, or no end at all, where the control's ended; another stop reason), or None
    where it did not, or it cannot be told (it ended with no stop reason)."""
    if stop.startswith(FAILED):
        return f"failed ({stop.removeprefix(FAILED)})"
    if stop == NOT_ENDED:
        return (
            "did not end within the turn clock (--turn-timeout; --timeout once the agent's status answer said "
            "no turn was going)"
        )
    if stop in (NO_REASON, control_stop):
        return None
    return f"ended with stopReason {stop!r}"


@case("status.active.during-turn", level=Level.MUST, spec=spec.ACTIVE, rules=("turn-untouched",))
async def active_while_a_turn_waits(acp: AcpTarget, details: dict) -> None:
    """While a turn waits on the user's permission, status answers at once, `active`, and the turn
    then ends as a turn without status calls does."""
    control_stop = await _control_turn(acp)
    sid = await acp.new_session()

    async def ask() -> list[Any]:
        return [await acp.status(sid) for _ in range(STATUS_CALLS)]

    stop, replies = await held_turn(acp, sid, ask)
    if stop is None:  # the control turn waited on a permission, this one did not: nothing asked
        raise MissingInput("the turn asked no permission this time, so status was not asked during it")
    answers = [answer_of(r) for r in replies or []]
    details.update(control_stop=control_stop, stop=stop, answers=answers)
    wrong = [r for r in replies or [] if answer_of(r) != "active"]
    if wrong:
        raise Violation(
            f"while a turn waited on the user's permission, status answered {show(wrong[0].result or wrong[0].error)}: "
            "a session with a turn in progress is in memory",
            expected=revisions.word("active"),
            observed=answers,
        )
    touched = None if control_stop in UNSEEN else turn_touched(stop, control_stop)
    if control_stop in UNSEEN:  # no observation, no conclusion about the turn
        details["unjudged"] = {"turn-untouched": UNSEEN_REASON}
    elif control_stop == "cancelled" and not (stop.startswith(FAILED) or stop == NOT_ENDED):
        # Calibration: a turn nobody cancelled ends `cancelled` anyway, so a status call that
        # cancels the turn would look the same: no conclusion about the turn.
        details["unjudged"] = {
            "turn-untouched": "the control turn ended `cancelled` though nobody cancelled it"
        }
    elif stop == NO_REASON:
        details["unjudged"] = {"turn-untouched": UNSEEN_REASON}
    elif touched is not None:
        raise Violation(
            f"the turn status was asked about {touched}, the same turn without status calls ended with stopReason "
            f"{control_stop!r}: status changed the turn in progress",
            expected=control_stop,
            observed=stop,
            rule="turn-untouched",
        )


@case(
    "transport.notification.leaves-turn",
    level=Level.ROBUSTNESS,
    spec=spec.NO_SIDE_EFFECTS,
    needs=("status", "frames"),
)
async def status_notification_leaves_the_turn(acp: AcpTarget, details: dict) -> None:
    """`session/status` sent as a notification (no id: a frame no ACP client sends) while a turn
    waits on the user's permission leaves the turn as it was: it ends as the control turn does."""
    control_stop = await _control_turn(acp)
    if control_stop in UNSEEN:
        raise MissingInput(UNSEEN_REASON)
    if control_stop == "cancelled":  # calibration: a cancelling notification would look the same
        raise MissingInput("a turn nobody cancelled ended `cancelled`, so a cancelled turn proves nothing")
    sid = await acp.new_session()

    async def notify() -> Any:
        await acp.peer.notify("session/status", {"sessionId": sid})
        # A round trip after, so the notification has been read; not a status request, which
        # status.active.during-turn judges.
        return await acp.call("_conformance/ping", {})

    stop, _ = await held_turn(acp, sid, notify)
    if stop is None:
        raise MissingInput("the turn asked no permission this time, so the notification did not meet a turn")
    if stop == NO_REASON:
        raise MissingInput(UNSEEN_REASON)
    details.update(control_stop=control_stop, stop=stop)
    touched = turn_touched(stop, control_stop)
    if touched is not None:
        raise Violation(
            f"after a session/status notification (no id) during the turn, it {touched}, the same turn without it "
            f"ended with stopReason {control_stop!r}: the notification changed the turn in progress",
            expected=control_stop,
            observed=stop,
        )

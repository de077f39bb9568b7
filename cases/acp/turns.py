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


async def _turn(acp: AcpTarget, sid: str, during: Any = None) -> tuple[str | None, Any]:
    """Run a turn that waits on a held permission request; call ``during()`` while it waits.
    Returns the turn's stop reason (None: the agent asked no permission) and what ``during``
    returned."""
    peer = acp.peer
    peer.hold_methods = {"session/request_permission"}
    held_before, got = len(peer.held), {}
    stalled: list[Unanswered] = []
    mark = len(peer.notifications)

    async def prompt() -> None:
        # The turn clock, and more: the turn also waits on a permission the suite holds while
        # status is asked.
        clock = acp.turn_timeout + 3 * acp.harness.config.timeout
        reply = await acp.prompt(sid, PERMISSION, wait=False, timeout=clock)
        got["reply"] = reply
        if acp.protocol == 2 and reply.ok:  # the idle update that ends the turn carries its stopReason
            update = await acp.wait_turn_end(sid, since=mark)
            got["stop"] = (update or {}).get("stopReason")
        elif reply.ok and isinstance(reply.result, dict):
            got["stop"] = reply.result.get("stopReason")
        got["ended"] = True

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(prompt)
            with anyio.move_on_after(acp.turn_timeout):
                # Until the permission request, or the turn's end: in v2 the prompt's answer comes
                # at once and the permission request after it (a model decides to ask: the turn clock).
                while len(peer.held) == held_before and "ended" not in got:
                    await anyio.sleep(0.01)
            asked = len(peer.held) > held_before
            if asked and during is not None:
                try:
                    got["during"] = await during()
                except Unanswered as exc:  # re-raised below, once the turn is let go
                    stalled.append(exc)
                    tg.cancel_scope.cancel()
            await peer.release()
    finally:
        peer.hold_methods = set()
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
    reply = got.get("reply")
    if reply is None or not reply.ok:
        # The status specs say nothing of how a turn answers once its permission request is
        # answered: an agent may end a prompt the client answered `cancelled` with an error.
        raise MissingInput(
            f"the turn waiting on a permission request failed: {reply.describe() if reply else 'no answer'}"
        )
    stop = got.get("stop")
    return (UNSEEN if stop is None else str(stop)), got.get("during")


UNSEEN = "(end not seen)"


async def _control_turn(acp: AcpTarget) -> str:
    """The stop reason of a turn on another session, run the same way with nothing during it:
    what a turn the case touched must end with. n/a when the agent asks no permission."""
    control_stop, _ = await _turn(acp, await acp.new_session())
    if control_stop is None:
        raise NotApplicable(
            "the agent asked no permission for a '[permission]' prompt, so no turn stays in progress"
        )
    return control_stop


@case("status.active.during-turn", level=Level.MUST, spec=spec.ACTIVE, rules=("turn-untouched",))
async def active_while_a_turn_waits(acp: AcpTarget, details: dict) -> None:
    """While a turn waits on the user's permission, status answers at once, `active`, and the turn
    then ends as a turn without status calls does."""
    control_stop = await _control_turn(acp)
    sid = await acp.new_session()

    async def ask() -> list[Any]:
        return [await acp.status(sid) for _ in range(STATUS_CALLS)]

    stop, replies = await _turn(acp, sid, ask)
    if stop is None:  # the control turn waited on a permission, this one did not: nothing asked
        raise MissingInput("the turn asked no permission this time, so status was not asked during it")
    if UNSEEN in (stop, control_stop):  # no observation, no conclusion about the turn
        # v2's idle update only SHOULD carry the stopReason: no observation, no conclusion.
        raise MissingInput(
            "a turn's stop reason was not seen: it did not end within --turn-timeout, or (v2) its idle update carried "
            "no stopReason (which it only SHOULD)"
        )
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
    if control_stop == "cancelled":
        # Calibration: a turn nobody cancelled ends `cancelled` anyway, so a status call that
        # cancels the turn would look the same: no conclusion about the turn.
        details["unjudged"] = {
            "turn-untouched": "the control turn ended `cancelled` though nobody cancelled it"
        }
    elif stop != control_stop:
        raise Violation(
            f"the turn status was asked about ended with stopReason {stop!r}, the same turn without status calls with "
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
    if control_stop == "cancelled":  # calibration: a cancelling notification would look the same
        raise MissingInput("a turn nobody cancelled ended `cancelled`, so a cancelled turn proves nothing")
    sid = await acp.new_session()

    async def notify() -> Any:
        await acp.peer.notify("session/status", {"sessionId": sid})
        # A round trip after, so the notification has been read; not a status request, which
        # status.active.during-turn judges.
        return await acp.call("_conformance/ping", {})

    stop, _ = await _turn(acp, sid, notify)
    if stop is None:
        raise MissingInput("the turn asked no permission this time, so the notification did not meet a turn")
    if UNSEEN in (stop, control_stop):
        # v2's idle update only SHOULD carry the stopReason: no observation, no conclusion.
        raise MissingInput(
            "a turn's stop reason was not seen: it did not end within --turn-timeout, or (v2) its idle update carried "
            "no stopReason (which it only SHOULD)"
        )
    details.update(control_stop=control_stop, stop=stop)
    if stop != control_stop:
        raise Violation(
            f"after a session/status notification (no id) during the turn, it ended with stopReason {stop!r}, "
            f"the same turn without it with {control_stop!r}: the notification changed the turn in progress",
            expected=control_stop,
            observed=stop,
        )

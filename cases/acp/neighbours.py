"""Neighbours: a session's status while a sibling session is busy.

An agent holds several sessions, of one user or of many, and status answers for the session
asked about alone: not for a sibling whose turn is in progress and holds an external call (the
suite holds the agent's `session/request_permission`, a call to the client, for as long as the
case needs). Over a network transport the same probes go out from a second connection too,
which must hear the same answers: the state is the agent's, "for any connection". v2's
foreground state has its own case (status.state.own-last-update).
"""

from conformance.cases.acp import spec
from conformance.cases.acp.implied import answer_of, check_implied
from conformance.cases.acp.turns import held_turn

from conformance.core.outcomes import NotApplicable, Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.expect import show
from conformance.targets.acp.target import AcpTarget


@case("status.neighbours.sibling-turn", level=Level.MUST, spec=spec.INACTIVE, rules=("for-any-connection",))
async def status_beside_a_busy_sibling(acp: AcpTarget, details: dict) -> None:
    """While a sibling's turn waits on the user's permission, a closed session and an idle live
    one each answer as they do alone (or as the other methods then agree: a closed session called
    active must take a prompt), and a second connection hears the same answers for all three."""
    closed = await acp.inactive_session()  # first: it may restart the agent
    live, busy = await acp.new_session(), await acp.new_session()
    targets = {"a closed session": closed, "an idle live session": live, "the busy session": busy}
    alone = {label: answer_of(await acp.status(sid)) for label, sid in targets.items() if sid != busy}
    other = await acp.connect_again() if acp.harness.current_url() is not None else None
    ids = list(targets.values())

    async def probe() -> tuple[list, list | None]:
        mine = await acp.statuses(ids)
        theirs = await other.statuses(ids) if other is not None else None
        return mine, theirs

    stop, heard = await held_turn(acp, busy, probe)
    if stop is None:
        raise NotApplicable(
            "the agent asked no permission for a '[permission]' prompt, so no sibling stays busy"
        )
    mine, theirs = heard
    during = {label: answer_of(r) for label, r in zip(targets, mine, strict=True)}
    details.update(alone=alone, while_sibling_waits=during)
    if theirs is not None:
        details["connection_b"] = {label: answer_of(r) for label, r in zip(targets, theirs, strict=True)}
    for (label, sid), reply in zip(targets.items(), mine, strict=True):
        if label in alone and during[label] != alone[label]:
            # Eviction is the agent's to choose: an answer that changed is judged by what the
            # other methods then do (the turn is over by now).
            await check_implied(acp, sid, reply, f"{label}, asked while a sibling's turn waited on the user")
    if theirs is None:
        return
    for (label, sid), reply, same in zip(targets.items(), theirs, mine, strict=True):
        if answer_of(reply) != answer_of(same):
            raise Violation(
                f"while a sibling's turn waited on the user, connection B heard {reply.describe()} for {label} ({sid}), "
                f"and connection A, a moment before, {same.describe()}: the state is the agent's, for any connection",
                expected=show(same.result if same.ok else same.error),
                observed=show(reply.result if reply.ok else reply.error),
                rule="for-any-connection",
            )

"""HTTP status later on: once a parked turn is answered, once the session is deleted, and over a hold.

The hidden effect (the answer was taken; the session is gone) is read through the session's
messages, calibrated in the same case: they showed the tool call waiting before the answer
(and the session present before the delete), so when they stop showing it the suite knows the
service has taken the answer (or dropped the session), and from then on the status must agree.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx
from conformance.cases.http.states import (
    AWAITING_EXTERNAL,
    AWAITING_PERMISSION,
    PARKED,
    driven_session,
    never_started,
    parked_for_external,
    parked_for_permission,
)
from conformance.cases.http.status import HTTP_CAPABILITY, NOT_FOUND, wait_until

from conformance.core.outcomes import MissingInput, NotTestable, Problems, Violation
from conformance.core.registry import Level, case
from conformance.targets.http.target import HttpStatusTarget, StatusProbe

WAITING = {"asking": "awaiting_permission", "submitted": "awaiting_external_result"}
# Seconds of a 3 s model call after which it ran its course (it was not stopped early).
RAN_OUT = 2.5


async def answer_and_settle(
    http: HttpStatusTarget,
    agent_id: str,
    sid: str,
    waiting: str,
    answer: Callable[[], Awaitable[httpx.Response]],
    what: str,
) -> StatusProbe:
    """Answer the parked turn (its calls in state ``waiting`` as the messages show them) and
    return the status once the resumed run has ended (or the last one within --timeout)."""
    calls = await http.waiting_calls(agent_id, sid)
    if not calls or not any(c.get("state") == waiting for c in calls):
        raise MissingInput(
            f"the session's messages show no tool call in state {waiting!r} ({calls!r:.200}), so the suite cannot "
            f"tell when the service has taken {what}"
        )
    asked_before = len(http.model.requests)
    response = await answer()
    if response.status_code >= 300:
        # The route that takes the answer is outside the spec; whether a probe made the turn
        # unanswerable is http.safe.parked-stays-parked's to judge.
        raise MissingInput(
            f"{what} was refused (HTTP {response.status_code} {response.text[:300]}), so the turn was not resumed"
        )

    async def taken() -> bool:
        now = await http.waiting_calls(agent_id, sid)
        return now is not None and not any(c.get("state") == waiting for c in now)

    if not await wait_until(taken, http.settle_time):
        raise MissingInput(
            f"{http.settle_time:g} s after {what} was accepted, the session's messages still show the tool call "
            "waiting: the service has not taken it"
        )
    final = await http.wait_for(agent_id, sid, "idle", timeout=http.settle_time)
    if final.status in PARKED and len(http.model.requests) == asked_before:
        # The messages show the answer taken, but no run resumed the turn (the model was asked
        # nothing since): the persisted context may still hold the call waiting, which is what the
        # status reports. No observation of the context, no conclusion.
        raise MissingInput(
            f"{what} was taken (the messages show no call waiting), but no run resumed the turn within "
            f"{http.settle_time:g} s (the model was asked nothing since), and the status still reads "
            f"{final.describe()}"
        )
    return final


def left_parked(final: StatusProbe, what: str) -> str | None:
    """A problem when the status still says the turn waits after the messages showed it answered."""
    if final.status in PARKED:
        return f"after {what} was taken (the messages show no call waiting), the status stayed {final.describe()}"
    if final.status != "idle":
        raise MissingInput(f"the run resumed by {what} did not end within the timeout ({final.describe()})")
    return None


@case(
    "http.later.permission-answered",
    level=Level.MUST,
    spec=AWAITING_PERMISSION,
    needs=HTTP_CAPABILITY,
    rules=("allowed", "denied"),
)
async def permission_answered(http: HttpStatusTarget, details: dict) -> None:
    """Once the user allows (and, on another session, denies) the tool call, the session leaves
    awaiting_permission: idle once the resumed run ends."""
    problems = Problems.listed(
        "idle once the resumed run ends: no tool call waits for permission any more",
    )
    with problems.kept(details):  # the denied session's park failing keeps what the allowed one showed
        for rule, allow in (("allowed", True), ("denied", False)):
            agent_id, sid = await driven_session(http, "a session waiting for permission")
            await parked_for_permission(http, agent_id, sid)
            what = f"the user's answer ({'allow' if allow else 'deny'})"
            final = await answer_and_settle(
                http,
                agent_id,
                sid,
                "asking",
                lambda a=agent_id, s=sid, y=allow: http.driver.confirm(http.user_id, a, s, allow=y),
                what,
            )
            details[rule] = final.describe()
            problem = left_parked(final, what)
            if problem:
                problems.add(rule, problem)
    problems.judge()


@case("http.later.external-answered", level=Level.MUST, spec=AWAITING_EXTERNAL, needs=HTTP_CAPABILITY)
async def external_answered(http: HttpStatusTarget, details: dict) -> None:
    """Once the external executor's result is submitted, the session leaves
    awaiting_external_result: idle once the resumed run ends."""
    agent_id, sid = await driven_session(http, "a session waiting for an external executor")
    await parked_for_external(http, agent_id, sid, details)
    what = "the external executor's result"
    final = await answer_and_settle(
        http,
        agent_id,
        sid,
        "submitted",
        lambda: http.driver.submit_external_result(http.user_id, agent_id, sid),
        what,
    )
    details["after"] = final.describe()
    problem = left_parked(final, what)
    if problem:
        raise Violation(
            problem,
            expected="idle once the resumed run ends: no tool call waits for an executor any more",
            observed=final.describe(),
        )


# RFC 9110 9.3.5: a DELETE answered 200 or 204 "has been enacted" (202: accepted, not yet enacted).
ENACTED = (200, 204)


@case(
    "http.later.deleted", level=Level.MUST, spec=NOT_FOUND, needs=HTTP_CAPABILITY, rules=("idle", "running")
)
async def deleted_is_404(http: HttpStatusTarget, details: dict) -> None:
    """Once the session is deleted (idle, and on another session while a run holds its lease),
    its status is 404, asked once its messages are gone. A DELETE answered 200 or 204 has been
    enacted (RFC 9110): where the session's messages still answer once the run has ended (a
    deletion may wait for it) and the settle time has passed again, its status is asked all the
    same."""
    http.require_driving("deleting a session")
    if not http.deletes():
        raise MissingInput("the service documents no DELETE /sessions/{session_id} in its /openapi.json")
    problems = Problems.listed(
        "HTTP 404: the session does not exist any more (its messages are 404 already)",
    )
    unprobed = ""
    with problems.kept(details):  # what the idle rule found stands, whatever the running one runs into
        for rule in ("idle", "running"):
            problem, unobserved = await _delete_and_probe(http, rule, details)
            if problem:
                problems.add(rule, problem)
            unprobed = unprobed or unobserved
    problems.judge()
    if unprobed:
        raise MissingInput(unprobed)


async def _delete_and_probe(http: HttpStatusTarget, rule: str, details: dict) -> tuple[str, str]:
    """Delete a session (idle, or while a run holds its lease) and probe it: what is wrong, and
    why nothing could be concluded (each empty when it does not apply)."""
    agent_id, sid = await http.new_session()
    if not await _messages_tell_existence(http, agent_id, sid):
        raise MissingInput(
            "the session's messages do not tell an existing session (200) from an unknown id (not 2xx), so "
            "the suite cannot see when a deletion has taken effect"
        )
    request: dict[str, Any] | None = None
    if rule == "running":
        tag = await http.chat(agent_id, sid, "[slow:3] answer slowly")
        request = await http.wait_for_model(tag, timeout=http.settle_time, script="slow")
        if request is None:
            raise never_started(http)
    if request is None:  # the running session is not probed first: a probe may wait for its run
        details[f"{rule}: before"] = (await http.status(sid, agent_id)).describe()
    if request is not None and request["done"] is not None:
        raise MissingInput("the run had ended before the DELETE could be sent")
    response = await http.driver.delete_session(http.user_id, agent_id, sid)
    if response.status_code >= 300:
        when = "while a run held its lease" if rule == "running" else "of an idle session"
        if request is not None:  # leave no run going behind the case
            await wait_until(lambda: _done(request), http.settle_time)
        # The status spec says nothing of DELETE: a service may refuse it (409 while a run holds
        # the session), and a session that was not deleted says nothing of a deleted one's status.
        raise MissingInput(
            f"DELETE /sessions/{{id}} {when} was refused with HTTP {response.status_code} "
            f"({response.text[:300]}), so there was no deleted session to probe"
        )

    async def gone() -> bool:
        return not 200 <= await http.exists_elsewhere(agent_id, sid) < 300

    if not await wait_until(gone, http.settle_time):
        # A deletion that waits for the run to end may take effect then; one answered 200 or 204
        # must have taken effect by the time the run has ended and the settle time passed again.
        if request is not None:
            await wait_until(lambda: _done(request), http.settle_time)
        if response.status_code not in ENACTED or await wait_until(gone, http.settle_time):
            raise MissingInput(
                f"{http.settle_time:g} s after the DELETE (HTTP {response.status_code}), the session's messages still "
                "answered 200" + (", until its run had ended" if request is not None else "")
            )
    after = [await http.status(sid, agent_id), await http.status(sid, agent_id)]
    details[f"{rule}: after"] = [p.describe() for p in after]
    wrong = [p for p in after if p.code != 404]
    problem = unobserved = ""
    if wrong:
        when = "while a run held its lease" if rule == "running" else "idle"
        problem = (
            f"the session deleted {when} (DELETE answered HTTP {response.status_code}) was then answered "
            f"{wrong[0].describe()}"
        )
    elif request is not None and request["done"] is not None and request["done"] - request["at"] >= RAN_OUT:
        # The model call ran its course before the probes were answered (a service that stops
        # the run on delete ends it early): the lease may have gone with it, so a 404 here does
        # not show what a run's lease does to a deleted session.
        unobserved = (
            "the run's model call (3 s) ended before the deleted session's status was asked: "
            "the machine was too slow to probe it while the run held its lease"
        )
    if request is not None:  # leave no run going: a run the delete did not stop ends with its model call
        await wait_until(lambda: _done(request), http.settle_time)
    return problem, unobserved


async def _done(request: dict[str, Any]) -> bool:
    return request["done"] is not None


async def _messages_tell_existence(http: HttpStatusTarget, agent_id: str, sid: str) -> bool:
    mine = await http.exists_elsewhere(agent_id, sid)
    unknown = await http.exists_elsewhere(agent_id, http.unknown_id())
    return 200 <= mine < 300 and not 200 <= unknown < 300


HOLD_STEP = 0.2  # seconds between the probes of a hold


@case(
    "http.later.states-hold",
    level=Level.MUST,
    spec=AWAITING_PERMISSION,
    needs=HTTP_CAPABILITY,
    rules=("permission", "external", "idle"),
    slow=True,
)
async def states_hold(http: HttpStatusTarget, details: dict) -> None:
    """A session parked on a permission request, one parked on an external executor and one whose
    answered turn has ended, watched together for --hold seconds (3 in ci, 15 in thorough), each
    probed every 0.2 s: each keeps its status (awaiting_permission, awaiting_external_result,
    idle) as long as its messages show the same. A parked state forgotten after a few seconds (idle
    while the tool call still waits) fails.

    Calibrated: a probe that reads another state is judged by the session's messages read right
    after it: a call still waiting there was waiting when the probe was answered (a call that has
    stopped waiting does not wait again without a new turn). A service that gives a request up
    (its messages show the call finished) or drops the session (its messages 404) ends that
    session's watch: its own transition, not a forgotten state. A session parked on an external
    executor that the toolkit cannot reach is left out."""
    http.require_driving("sessions held in a state")
    held = await _sessions_in_three_states(http, details)
    problems: list[tuple[str, str]] = []
    watches = {
        rule: _Watch(http, rule, *held[rule]) for rule in ("permission", "external", "idle") if rule in held
    }
    if "idle" not in watches:
        details["idle"] = "left out: the answered turn did not end idle within --timeout"
    seconds = http.harness.config.hold_seconds
    await _watch_together(watches, seconds)
    for rule, watch in watches.items():
        details[rule] = watch.summary()
        if watch.problem:
            problems.append((rule, watch.problem))
    for agent_id, sid, _ in held.values():
        await http.driver.interrupt(http.user_id, agent_id, sid)  # no parked turn left behind
    if problems:
        raise Violation(
            f"held for {seconds:g} s: " + "; ".join(p for _, p in problems),
            expected="each session's status as its messages show it for as long as they show it",
            observed=[p for _, p in problems],
            rule=problems[0][0],
        )


async def _sessions_in_three_states(http: HttpStatusTarget, details: dict) -> dict[str, tuple[str, str, str]]:
    """Three sessions, made one after the other (sessions are made, not driven, here), then driven
    together: one parked on a permission request, one on an external executor, one whose answered
    turn ended. {rule: (agent, session, the state it must keep)} for those that got there; details
    say why one was left out."""
    held: dict[str, tuple[str, str, str]] = {}
    (agent_id, to_park), (_, to_dispatch), (_, to_answer) = [await http.new_session() for _ in range(3)]

    async def permission() -> None:
        await parked_for_permission(http, agent_id, to_park)
        held["permission"] = (agent_id, to_park, "awaiting_permission")

    async def external() -> None:
        try:
            await parked_for_external(http, agent_id, to_dispatch, details)
        except (MissingInput, NotTestable) as exc:
            details["external"] = f"left out: {exc.message[:200]}"
            return
        held["external"] = (agent_id, to_dispatch, "awaiting_external_result")

    async def answered() -> None:
        await parked_for_permission(http, agent_id, to_answer)
        final = await answer_and_settle(
            http,
            agent_id,
            to_answer,
            "asking",
            lambda: http.driver.confirm(http.user_id, agent_id, to_answer, allow=True),
            "the user's answer (allow)",
        )
        if final.status == "idle":
            held["idle"] = (agent_id, to_answer, "idle")

    async with anyio.create_task_group() as tg:
        for setup in (permission, external, answered):
            tg.start_soon(setup)
    return held


async def _watch_together(watches: dict[str, _Watch], seconds: float) -> None:
    """Every open watch looks once each HOLD_STEP, all at once, for ``seconds`` or until none is
    open."""
    started = time.monotonic()
    while time.monotonic() - started < seconds and any(w.open for w in watches.values()):
        async with anyio.create_task_group() as tg:
            for watch in watches.values():
                if watch.open:
                    tg.start_soon(watch.look, time.monotonic() - started)
        await anyio.sleep(HOLD_STEP)


class _Watch:
    """One session held in a state: its probes, and what ended the watch."""

    def __init__(self, http: HttpStatusTarget, rule: str, agent_id: str, sid: str, state: str) -> None:
        self.http, self.rule, self.agent_id, self.sid, self.state = http, rule, agent_id, sid, state
        self.open = True
        self.probes = 0
        self.ended = ""
        self.problem = ""

    async def look(self, at: float) -> None:
        probe = await self.http.status(self.sid, self.agent_id)
        self.probes += 1
        if probe.status == self.state:
            return
        calls = await self.http.waiting_calls(self.agent_id, self.sid)
        self.open = False
        if calls is None:  # the messages cannot be read: the service dropped the session
            self.ended = (
                f"{at:.1f} s in, {probe.describe()} and its messages cannot be read: the service dropped it"
            )
            return
        waiting = {WAITING[c["state"]] for c in calls if c.get("state") in WAITING}
        if self.state in PARKED and self.state not in waiting:
            self.ended = f"{at:.1f} s in, the service gave the call up (its messages show none waiting): {probe.describe()}"
            return
        if self.state == "idle" and not waiting and probe.status == "running":
            self.ended = f"{at:.1f} s in, a worker took the session's lease: {probe.describe()}"
            return
        shown = ", ".join(sorted(waiting)) or "no tool call waiting"
        self.problem = (
            f"{at:.1f} s into the hold, the session {'parked' if self.state in PARKED else 'left'} as {self.state} "
            f"read {probe.describe()} while its messages still show {shown}"
        )

    def summary(self) -> str:
        said = self.problem or self.ended or f"kept {self.state}"
        return f"{said} ({self.probes} probes)"

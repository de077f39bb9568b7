"""HTTP status through a neighbour: a session probed while its siblings run, wait, or are probed too.

The four states are each a session's own (its run lease, its persisted tail), so a session says
nothing of what its siblings do: sessions of the same user and agent, and of another agent of the
same user, stay idle while a sibling's run holds its lease, while a sibling waits for permission
and while one waits for an external executor; and probes of all of them sent together (with
another user's) each get their own session's answer.
"""

from __future__ import annotations

import time
from typing import Any

import anyio
from conformance.cases.http.states import IDLE, never_started, park_on_external, parked_for_permission
from conformance.cases.http.status import HTTP_CAPABILITY

from conformance.core.outcomes import MissingInput, NotTestable, Problems
from conformance.core.registry import Level, case
from conformance.targets.http.target import HttpStatusTarget, StatusProbe

EACH = 4  # probes of each session in the burst
RUN_SECONDS = 2  # the running sibling's model call


@case(
    "http.neighbour.siblings",
    level=Level.MUST,
    spec=IDLE,
    needs=HTTP_CAPABILITY,
    rules=("running", "parked", "external", "crossed", "other-user"),
)
async def siblings(http: HttpStatusTarget, details: dict) -> None:
    """While a sibling session of the same user and agent runs, another waits for permission and
    another for an external executor, an idle session of the same agent and one of another agent
    of the same user read idle: alone, and in a burst of probes of every sibling sent together with
    another user's probes of the idle session. In that burst each sibling reads its own state and
    the other user gets 404.

    Calibrated: the idle sessions never ran (their messages show no tool call waiting); only probes
    sent and answered while the running sibling's model call was in flight are judged for the
    running sibling, and only siblings whose messages show their call waiting for theirs."""
    http.require_driving("sibling sessions in each state")
    agent_id, idle = await http.new_session()
    other_agent = await http.driver.create_agent(http.user_id, http.model.base_url)
    other_idle = await http.driver.create_session(http.user_id, other_agent, name="conformance-sibling")
    _, running = await http.new_session()
    _, parked = await http.new_session()
    _, external = await http.new_session()
    states = await _park_siblings(http, agent_id, parked, external, details)
    tag = await http.chat(agent_id, running, f"[slow:{RUN_SECONDS}] answer slowly")
    request = await http.wait_for_model(tag, timeout=http.settle_time, script="slow")
    if request is None:
        raise never_started(http)
    idles = {idle: agent_id, other_idle: other_agent}
    sessions = {**idles, running: agent_id, parked: agent_id, external: agent_id}
    answers = await _probe_alone_then_together(http, request, sessions, idles, idle)
    names = {
        idle: "the idle session",
        other_idle: "the idle session of another agent",
        running: "the running sibling",
    }
    names |= {
        parked: "the sibling waiting for permission",
        external: "the sibling waiting for an external executor",
    }
    problems = Problems.listed(
        "each session its own state: the idle ones idle whatever their siblings do, the other user 404",
        limit=6,
    )
    problems.extend(_judge(answers, idles, states, running, names, parked, external))
    details["answers"] = sorted(
        {
            f"{names.get(s.split(' ')[0], s)}{' (another user)' if 'another' in s else ''}: {p.describe()}"
            for s, p, _ in answers
        }
    )
    if not any(inside for s, _, inside in answers if s.split(" ")[0] in idles):
        details["running sibling"] = (
            "no probe of an idle session was answered while the sibling's call was in flight"
        )
    with problems.kept(details):  # the siblings' settling unanswered keeps what the burst showed
        await _quiet(http, request, running, sessions)
    problems.judge()


async def _park_siblings(
    http: HttpStatusTarget, agent_id: str, parked: str, external: str, details: dict
) -> dict[str, str]:
    """Park one sibling on a permission request and another on an external executor, together:
    {sibling: the state its own messages put it in}, for those that got there (the others are
    left out, and details say why)."""
    states: dict[str, str] = {}

    async def park() -> None:
        try:
            await parked_for_permission(http, agent_id, parked)
            states[parked] = "awaiting_permission"
        except (MissingInput, NotTestable) as exc:
            details["parked sibling"] = f"left out: {exc.message[:200]}"

    async def wait_external() -> None:
        try:
            probe = await park_on_external(http, agent_id, external, {})
        except MissingInput as exc:
            details["external sibling"] = f"left out: {exc.message[:200]}"
            return
        calls = await http.waiting_calls(agent_id, external)
        if probe.status == "awaiting_external_result" and calls:
            states[external] = "awaiting_external_result"
        else:
            details["external sibling"] = (
                f"left out: it did not park on an external executor ({probe.describe()})"
            )

    async with anyio.create_task_group() as tg:
        tg.start_soon(park)
        tg.start_soon(wait_external)
    return states


async def _probe_alone_then_together(
    http: HttpStatusTarget,
    request: dict[str, Any],
    sessions: dict[str, str],
    idles: dict[str, str],
    idle: str,
) -> list[tuple[str, StatusProbe, bool]]:
    """The idle sessions probed alone, then EACH probes of every session sent together with the
    other user's probes of ``idle``: (session, answer, whether it was sent and answered inside the
    running sibling's model call)."""
    answers: list[tuple[str, StatusProbe, bool]] = []

    async def probe(sid: str, user: str | None = None) -> None:
        sent = time.time()
        got = await http.status(sid, sessions[sid], user_id=user)
        inside = request["at"] <= sent and request["done"] is None
        answers.append((f"{sid}{' (another user)' if user else ''}", got, inside))

    for sid in idles:
        await probe(sid)
    async with anyio.create_task_group() as tg:
        for _ in range(EACH):
            for sid in sessions:
                tg.start_soon(probe, sid)
            tg.start_soon(probe, idle, http.other_user_id)
    return answers


def _judge(
    answers: list[tuple[str, StatusProbe, bool]],
    idles: dict[str, str],
    states: dict[str, str],
    running: str,
    names: dict[str, str],
    parked: str,
    external: str,
) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    for label, got, inside in answers:
        sid = label.split(" ")[0]
        who = names[sid]
        if label.endswith("(another user)"):
            if 200 <= got.code < 300:
                problems.append(("other-user", f"another user's probe of {who} got {got.describe()}"))
            continue
        if sid in idles:
            if got.status == "running" and inside:
                problems.append(("running", f"{who} read running while its sibling's run held its lease"))
            elif got.status == "awaiting_permission" and parked in states:
                problems.append(
                    ("parked", f"{who} read awaiting_permission while a sibling waited for permission")
                )
            elif got.status == "awaiting_external_result" and external in states:
                problems.append(
                    (
                        "external",
                        f"{who} read awaiting_external_result while a sibling waited for an executor",
                    )
                )
            elif got.status != "idle" and got.status != "running":
                problems.append(("crossed", f"{who} read {got.describe()} among its siblings' probes"))
        elif sid in states and got.code == 200 and got.status not in (states[sid], "running"):
            problems.append(("crossed", f"{who} read {got.describe()} among its siblings' probes"))
        elif sid == running and inside and got.code == 200 and got.status != "running":
            problems.append(
                ("crossed", f"{who} read {got.describe()} while its own model call was in flight")
            )
    return list(dict.fromkeys(problems))


async def _quiet(
    http: HttpStatusTarget, request: dict[str, Any], running: str, sessions: dict[str, str]
) -> None:
    """No run or parked turn left behind: every sibling interrupted (the running one's run stopped
    rather than waited for), then the running one settles."""
    for sid, agent_id in sessions.items():
        await http.driver.interrupt(http.user_id, agent_id, sid)
    with anyio.move_on_after(http.settle_time):
        while request["done"] is None:
            await anyio.sleep(0.05)
    await http.settle(sessions[running], running)

"""HTTP status racing the requests that change a session: a chat, a DELETE, a permission answer.

Probes sent while a request that changes the session is being handled see the session before or
after it, never half of it (no server error, no state it was never in, not 404 while it exists),
and take nothing from it: the chat starts its run, the DELETE deletes, the answer is taken.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
import httpx
from conformance.cases.http.states import new_parked_session, parked_for_permission
from conformance.cases.http.status import HTTP_CAPABILITY, SAFE, wait_until

from conformance.core.outcomes import MissingInput, Problems
from conformance.core.registry import Level, case
from conformance.targets.http.target import HttpStatusTarget, StatusProbe

PROBES = 10  # probes sent around each request at least, one every SPACING seconds
MAX_PROBES = 100  # and at most (a second of them), while the request is still being handled
SPACING = 0.01
BEFORE = 3  # probes sent before the request
ANSWER_ROUNDS = 3  # permission answers raced, each on a fresh session, until one shows a problem


async def racing(
    http: HttpStatusTarget, agent_id: str, sid: str, request: Callable[[], Awaitable[httpx.Response]]
) -> tuple[httpx.Response, list[StatusProbe]]:
    """``request`` and status probes of the session around it, none waiting for another's answer:
    three sent together, the request right after them (so probes are in flight when it lands),
    then one every 10 ms until it is answered (PROBES at least, MAX_PROBES at most)."""
    answers: list[StatusProbe] = []
    result: list[httpx.Response] = []

    async def send() -> None:
        result.append(await request())

    async def probe() -> None:
        answers.append(await http.status(sid, agent_id))

    async with anyio.create_task_group() as tg:
        for index in range(MAX_PROBES):
            if index == BEFORE:
                tg.start_soon(send)
            tg.start_soon(probe)
            # The probes before the request go out together, right before it: however slowly a
            # loaded client sends, they are being handled when the request lands.
            await anyio.sleep(SPACING if index >= BEFORE else 0)
            # Probes keep coming while the request is handled, however long a loaded server takes:
            # a probe in flight when the request writes is what shows a lost write.
            if index >= PROBES - 1 and result:
                break
    return result[0], answers


def unexpected(answers: list[StatusProbe], allowed: set[str], codes: tuple[int, ...] = (200,)) -> list[str]:
    return sorted(
        {p.describe() for p in answers if p.code not in codes or (p.code == 200 and p.status not in allowed)}
    )


@case(
    "http.concurrency.races",
    level=Level.MUST,
    spec=SAFE,
    needs=HTTP_CAPABILITY,
    rules=("chat", "delete", "answer"),
)
async def probes_racing_changes(http: HttpStatusTarget, details: dict) -> None:
    """Probes racing POST /chat/ on an idle session read idle or running (and the run starts);
    probes racing its DELETE read idle or 404; probes racing the answer to its permission request
    read awaiting_permission, running or idle, and the answer is taken (the session's messages stop
    showing the call waiting, as on a session no probe raced).

    Calibrated: a chat or an answer refused under the probes counts against them only where the
    same request on a session no probe raced is taken; a refused DELETE leaves that rule out."""
    http.require_driving("probes racing the requests that change a session")
    problems = Problems.listed(
        "each probe sees the session before or after the request, and the request is taken",
    )
    # What a later race runs into (a request unanswered, a prerequisite that failed) ends the
    # case, and never hides the problem an earlier race has shown.
    with problems.kept(details):
        for rule, race in (("chat", _race_chat), ("delete", _race_delete), ("answer", _race_answer)):
            try:
                problem = await race(http, details)
            except MissingInput as exc:
                details[rule] = f"left out: {exc.message[:300]}"
                continue
            if problem:
                problems.add(rule, problem)
    problems.judge()
    if all(str(details.get(rule, "")).startswith("left out") for rule in ("chat", "delete", "answer")):
        raise MissingInput("no request that changes a session could be raced: " + str(details)[:300])


async def _race_chat(http: HttpStatusTarget, details: dict) -> str:
    agent_id, sid = await http.new_session()
    text = "[slow:1] answer slowly (race)"
    response, answers = await racing(http, agent_id, sid, lambda: http.prompt(agent_id, sid, text))
    details["chat"] = {"chat": response.status_code, "probes": sorted({p.describe() for p in answers})}
    odd = unexpected(answers, {"idle", "running"})
    await http.driver.interrupt(http.user_id, agent_id, sid)
    await http.settle(agent_id, sid)
    if odd:
        return f"probes racing POST /chat/ on an idle session were answered {'; '.join(odd[:3])}"
    if response.status_code < 300:
        return ""
    _, control = await http.new_session()
    unraced = await http.prompt(agent_id, control, text)
    await http.driver.interrupt(http.user_id, agent_id, control)
    await http.settle(agent_id, control)
    if unraced.status_code >= 300:
        raise MissingInput(
            f"POST /chat/ was refused with and without probes racing it (HTTP {unraced.status_code})"
        )
    return (
        f"POST /chat/ raced by probes was refused (HTTP {response.status_code} {response.text[:200]}), while on a "
        "session no probe raced it started"
    )


async def _race_delete(http: HttpStatusTarget, details: dict) -> str:
    if not http.deletes():
        raise MissingInput("the service documents no DELETE /sessions/{session_id} in its /openapi.json")
    agent_id, sid = await http.new_session()
    response, answers = await racing(
        http, agent_id, sid, lambda: http.driver.delete_session(http.user_id, agent_id, sid)
    )
    details["delete"] = {"delete": response.status_code, "probes": sorted({p.describe() for p in answers})}
    if response.status_code >= 300:
        raise MissingInput(f"DELETE /sessions/{{id}} was refused with HTTP {response.status_code}")
    odd = unexpected(answers, {"idle"}, codes=(200, 404))
    after = await http.status(sid, agent_id)
    if odd:
        return f"probes racing the DELETE of an idle session were answered {'; '.join(odd[:3])}"
    if after.code != 404 and not 200 <= await http.exists_elsewhere(agent_id, sid) < 300:
        return f"once the DELETE raced by probes was answered, the session's status was {after.describe()}"
    return ""


async def _race_answer(http: HttpStatusTarget, details: dict) -> str:
    """The answer raced by probes, up to ANSWER_ROUNDS times on fresh sessions while it is taken:
    a write lost to a probe's stale save shows only when a probe is inside its window."""
    for round_ in range(1, ANSWER_ROUNDS + 1):
        details["answer_rounds"] = round_
        problem = await _race_answer_once(http, details)
        if problem:
            return problem
    return ""


async def _race_answer_once(http: HttpStatusTarget, details: dict) -> str:
    agent_id, sid = await new_parked_session(http)
    response, answers = await racing(
        http, agent_id, sid, lambda: http.driver.confirm(http.user_id, agent_id, sid, allow=True)
    )
    details["answer"] = {"answer": response.status_code, "probes": sorted({p.describe() for p in answers})}
    odd = unexpected(answers, {"awaiting_permission", "running", "idle"})
    taken = await _taken(http, agent_id, sid) if response.status_code < 300 else False
    await http.settle(agent_id, sid)
    if odd:
        return f"probes racing the answer to a permission request were answered {'; '.join(odd[:3])}"
    if taken:
        return ""
    _, control = await http.new_session()
    await parked_for_permission(http, agent_id, control)
    unraced = await http.driver.confirm(http.user_id, agent_id, control, allow=True)
    control_taken = unraced.status_code < 300 and await _taken(http, agent_id, control)
    await http.settle(agent_id, control)
    if not control_taken:
        raise MissingInput(
            "the answer to a permission request was not taken with or without probes racing it "
            f"(HTTP {response.status_code}, and HTTP {unraced.status_code} unraced)"
        )
    return (
        f"the answer to a permission request raced by probes (HTTP {response.status_code}) was lost: the session's "
        f"messages still show the call waiting {http.settle_time:g} s later, while on a session no probe raced it "
        "was taken"
    )


async def _taken(http: HttpStatusTarget, agent_id: str, sid: str) -> bool:
    """Whether the session's messages stop showing a call waiting for permission (within --timeout)
    and keep not showing it a moment later."""

    async def gone() -> bool:
        calls = await http.waiting_calls(agent_id, sid)
        return calls is not None and not any(c.get("state") == "asking" for c in calls)

    if not await wait_until(gone, http.settle_time):
        return False
    await anyio.sleep(0.3)
    return await gone()

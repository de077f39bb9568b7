"""HTTP status when a run does not end well: its model fails mid-turn, or the user interrupts it
while the model streams. The status is watched right after and for a while.

A run that ended holds no lease, however it ended: its session must stop reading ``running``
(``RUNNING`` is a worker holding the lease; an ended run is no worker). And the lease is a
worker's: released at the interrupt while the worker still reads its model's stream, the session
reads idle with a worker running it. The fake model fails a request on ``[fail]`` (HTTP 400,
which OpenAI clients do not retry) and streams for N seconds on ``[slow:N]``; it records whether
each streamed answer was read to the end.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx
from conformance.cases.http.states import (
    IDLE,
    RUNNING,
    driven_session,
    never_started,
    new_parked_session,
    stop_run,
)
from conformance.cases.http.status import HTTP_CAPABILITY

from conformance.core.outcomes import MissingInput, NotTestable, Problems, Violation
from conformance.core.registry import Level, case
from conformance.targets.http.target import HttpStatusTarget, StatusProbe

WATCH = 0.5  # seconds the status is watched once the run has ended
STEP = 0.1  # seconds between the probes of a watch
STREAM_SECONDS = 2  # the interrupted run's model stream


async def _watch_until_not_running(
    http: HttpStatusTarget, agent_id: str, sid: str, tag: str, seen: list[str]
) -> StatusProbe:
    """Probe until the session reads something else than running, for as long as the run's model
    calls go on plus --timeout after the last one ended (a worker that ends its run a moment after
    its model is done is still at work): the last probe."""
    probe = await http.status(sid, agent_id)
    seen.append(str(probe.status))
    while probe.status == "running":
        calls = http.model_requests(tag)
        ended = [c["done"] for c in calls if c["done"] is not None]
        if len(ended) == len(calls) and ended and time.time() - max(ended) > http.settle_time:
            break
        await anyio.sleep(STEP)
        probe = await http.status(sid, agent_id)
        seen.append(str(probe.status))
    return probe


async def _watch_a_while(
    http: HttpStatusTarget, agent_id: str, sid: str, tag: str, seen: list[str]
) -> str | None:
    """Probe every STEP for WATCH seconds: the first running read while no model call of the run
    was in flight (a worker back at it would be calling its model), else None."""
    deadline = time.monotonic() + WATCH
    while time.monotonic() < deadline:
        await anyio.sleep(STEP)
        probe = await http.status(sid, agent_id)
        seen.append(str(probe.status))
        if probe.status == "running" and all(c["done"] is not None for c in http.model_requests(tag)):
            return probe.describe()
    return None


def _compact(seen: list[str]) -> list[str]:
    """The statuses read, each run of one status once: ``['running', 'idle']``."""
    return [s for i, s in enumerate(seen) if i == 0 or seen[i - 1] != s]


@case("http.failure.model-error", level=Level.MUST, spec=IDLE, needs=HTTP_CAPABILITY, slow=True)
async def a_run_whose_model_fails_ends(http: HttpStatusTarget, details: dict) -> None:
    """A run whose model call fails mid-turn (HTTP 400, not retried) ends: its session stops
    reading running once the call has failed, and does not read running again while no model
    call is made (watched for half a second).

    Calibrated: judged only once every model call of the run has ended and --timeout has passed
    since the last (a service may record the error, or retry, before it lets go)."""
    agent_id, sid = await driven_session(http, "a run whose model fails")
    tag = await http.chat(agent_id, sid, "[fail] answer")
    if await http.wait_for_model(tag, timeout=http.settle_time, script="fail") is None:
        raise never_started(http)
    seen: list[str] = []
    probe = await _watch_until_not_running(http, agent_id, sid, tag, seen)
    back = None if probe.status == "running" else await _watch_a_while(http, agent_id, sid, tag, seen)
    details["seen"] = _compact(seen)
    if probe.status == "running" or back:
        raise Violation(
            "the run's model call failed and no other was made, yet the session "
            + (
                f"still read running {http.settle_time:g} s (--timeout) after it"
                if back is None
                else f"read running again a moment after it had stopped ({back})"
            ),
            expected="idle (or a parked state) once the failed run has ended: no worker holds its lease",
            observed=_compact(seen),
        )


@case(
    "http.failure.interrupt",
    level=Level.MUST,
    spec=RUNNING,
    needs=HTTP_CAPABILITY,
    slow=True,
    rules=("ended", "worker"),
)
async def an_interrupted_run_ends(http: HttpStatusTarget, details: dict) -> None:
    """A run interrupted (POST /sessions/{id}/interrupt) while its model streams: the session
    stops reading running once the run has stopped, and does not read running again (watched for
    half a second); and it reads running as long as the worker still reads the stream: a status other
    than running while the interrupted stream goes on being read to its end is a lease released
    with a worker at work.

    Calibrated: the run's stream is known to be read to its end (the fake model sent it whole) or
    given up (the reader went away); a service that lets the model finish before it stops the run
    keeps reading running meanwhile, and passes. A service that does not stream its model's answer
    cannot show whether its worker still reads it: only the rule ended is judged there."""
    agent_id, sid = await driven_session(http, "an interrupted run")
    if not http.offers("post", "/sessions/{session_id}/interrupt"):
        raise MissingInput("the service's OpenAPI document has no POST /sessions/{session_id}/interrupt")
    tag = await http.chat(agent_id, sid, f"[slow:{STREAM_SECONDS}] answer slowly")
    request = await http.wait_for_model(tag, timeout=http.settle_time, script="slow")
    if request is None:
        raise never_started(http)
    answer = await http.driver.interrupt(http.user_id, agent_id, sid)
    if answer.status_code >= 300:
        raise NotTestable(
            f"POST /sessions/{{id}}/interrupt was refused: HTTP {answer.status_code} {answer.text[:200]}"
        )
    seen: list[str] = []
    released: list[float] = []  # when the session first read anything but running
    probe = await _watch_until_not_running(http, agent_id, sid, tag, seen)
    if probe.status != "running":
        released.append(time.time())
    back = None if probe.status == "running" else await _watch_a_while(http, agent_id, sid, tag, seen)
    with anyio.move_on_after(STREAM_SECONDS + http.settle_time):
        while request["done"] is None:
            await anyio.sleep(STEP)
    details.update(seen=_compact(seen), stream_read_whole=request["complete"], interrupt=answer.status_code)
    _judge_interrupt(http, request, probe, back, released, seen)


def _judge_interrupt(
    http: HttpStatusTarget,
    request: dict[str, Any],
    probe: StatusProbe,
    back: str | None,
    released: list[float],
    seen: list[str],
) -> None:
    # Only a streamed answer tells a reader that went away: a whole answer sent late to a closed
    # connection is still "sent" (the kernel takes it).
    streamed = request["body"].get("stream") is True
    if (
        streamed
        and released
        and request["complete"]
        and request["done"] is not None
        and released[0] < request["done"]
    ):
        raise Violation(
            f"after the interrupt the session read {probe.status!r} while its run still read the model's stream, "
            f"to its end {request['done'] - released[0]:.1f} s later: the lease was released with a worker at work",
            expected="running until the worker stops reading the stream (or the stream given up at the interrupt)",
            observed=_compact(seen),
            rule="worker",
        )
    if probe.status == "running" or back:
        raise Violation(
            "the run was interrupted and its model call had ended, yet the session "
            + (
                f"still read running {http.settle_time:g} s (--timeout) after it"
                if back is None
                else f"read running again a moment after it had stopped ({back})"
            ),
            expected="idle (or a parked state) once the interrupted run has stopped",
            observed=_compact(seen),
            rule="ended",
        )


# -- refused requests ----------------------------------------------------------------------------

REFUSED_RUN_SECONDS = 3  # the run the refused requests are sent during, without --http-long-run
WATCH_STEP = 0.2  # seconds between the probes of the rest of that run
ANSWER_TEXT = "streamed slowly"  # in the fake model's answer to a [slow] message

SECOND_CHAT = "the owner's second POST /chat/"
REFUSED = "(refused)"

Send = Callable[[], Awaitable[httpx.Response]]


def _refusable(
    http: HttpStatusTarget, agent_id: str, sid: str, *, second_chat: bool
) -> list[tuple[str, Send]]:
    """The requests a service refuses for the session, as (what, send): another user's chat,
    interrupt and DELETE of it (refused as not theirs), the owner's chat whose input is no message,
    the owner's answer to a permission request that was never asked (no reply waits under that
    id), and with ``second_chat`` the owner's second chat while a run works (a service may queue
    it instead: sent last, so the others are judged first)."""
    other = http.other_user_id
    driver = http.driver
    stale = {
        "type": "USER_CONFIRM_RESULT",
        "reply_id": f"never-asked-{uuid.uuid4().hex[:8]}",
        "confirm_results": [{"confirmed": True, "tool_call": {"id": "call_never_asked", "name": "Write"}}],
    }
    requests: list[tuple[str, Send]] = [
        ("another user's POST /chat/", lambda: driver.start_chat(other, agent_id, sid, "say OK")),
        ("another user's interrupt", lambda: driver.interrupt(other, agent_id, sid)),
    ]
    if http.deletes():
        requests.append(("another user's DELETE", lambda: driver.delete_session(other, agent_id, sid)))
    requests.append(
        (
            "the owner's POST /chat/ whose input is no message",
            lambda: driver.post_input(http.user_id, agent_id, sid, [42]),
        )
    )
    requests.append(
        (
            "the owner's answer to a permission request never asked",
            lambda: driver.post_input(http.user_id, agent_id, sid, stale),
        )
    )
    if second_chat:
        requests.append(
            (
                SECOND_CHAT,
                lambda: driver.start_chat(http.user_id, agent_id, sid, "say OK"),
            )
        )
    return requests


async def _after_refusals(
    requests: list[tuple[str, Send]],
    changed: Callable[[], Awaitable[str | None]],
    sent: list[str],
) -> str:
    """Send each request in turn; after each one the service refused (4xx, 5xx), ``changed`` says
    what the owner reads that it should not (None: the state can no longer be judged, and the
    requests left are not sent). A request the service took ends the sequence: what it changes is
    its own. ``sent``: each request and its answer. The first problem, else ""."""
    for what, send in requests:
        answer = await send()
        if answer.status_code < 400:
            sent.append(f"{what}: HTTP {answer.status_code}")
            return ""
        sent.append(f"{what}: HTTP {answer.status_code} {REFUSED}")
        problem = await changed()
        if problem is None:
            return ""
        if problem:
            return f"after {what} was refused (HTTP {answer.status_code}), {problem}"
    return ""


async def _answered(http: HttpStatusTarget, agent_id: str, sid: str) -> bool | None:
    """Whether the session's messages show the fake model's answer to the slow run (None: the
    messages cannot be read)."""
    response = await http.driver.messages(http.user_id, agent_id, sid)
    if response.status_code != 200:
        return None
    return ANSWER_TEXT in response.text


async def _refused_while_running(http: HttpStatusTarget, details: dict) -> str:
    seconds = http.long_run or REFUSED_RUN_SECONDS
    agent_id, sid = await http.new_session()
    tag = await http.chat(agent_id, sid, f"[slow:{seconds:g}] answer slowly")
    request = await http.wait_for_model(tag, timeout=http.settle_time, script="slow")
    if request is None:
        raise never_started(http)
    before, inside = await http.status_in_flight(sid, agent_id, request)
    if not inside or before.status != "running":
        await stop_run(http, agent_id, sid)
        raise MissingInput(
            "before any refused request the session did not read running while its run's model call was in flight "
            f"({before.describe()}): see http.state.running-during-run"
        )

    async def changed() -> str | None:
        probe, inside = await http.status_in_flight(sid, agent_id, request)
        if not inside:
            return None  # the run's model call has ended: running is no longer owed
        return (
            ""
            if probe.status == "running"
            else f"the status was {probe.describe()} while the run still worked"
        )

    sent: list[str] = []
    problem = await _after_refusals(_refusable(http, agent_id, sid, second_chat=True), changed, sent)
    details["running"] = sent
    # A request the service took may change the run: the second chat too, which a service may
    # queue, or take in place of the run going (the last message wins).
    taken = [s for s in sent if not s.endswith(REFUSED)]
    with anyio.move_on_after(seconds + http.settle_time):  # a hang bound: the model answers in `seconds`
        while request["done"] is None:
            if not (problem or taken):  # the rest of the run watched: a refusal whose effect shows later
                probe, inside = await http.status_in_flight(sid, agent_id, request)
                if inside and probe.status != "running":
                    problem = (
                        f"{time.time() - request['at']:.1f} s into the {seconds:g} s run, after the requests "
                        f"refused during it ({'; '.join(sent)}), the status was {probe.describe()} while the run "
                        "still worked"
                    )
            await anyio.sleep(WATCH_STEP)
    await http.settle(agent_id, sid)
    if problem or taken:
        await stop_run(http, agent_id, sid)
        return problem
    answered = await _answered(http, agent_id, sid)
    await stop_run(http, agent_id, sid)
    if answered is not False:
        return ""
    # Calibration: the same run with no request refused during it.
    control = await http.new_session()
    control_tag = await http.chat(control[0], control[1], f"[slow:{seconds:g}] answer slowly")
    await http.wait_for_model(control_tag, timeout=http.settle_time, script="slow")
    await http.wait_for(control[0], control[1], "idle", timeout=seconds + 2 * http.settle_time)
    if not await _answered(http, *control):
        raise MissingInput(
            "the session's messages never show the model's answer, even with no request refused"
        )
    return (
        f"once the run had ended its messages do not show the model's answer ({'; '.join(sent)}), while with no "
        "request refused during the run they do: a refused request stopped the run"
    )


async def _refused_while(http: HttpStatusTarget, agent_id: str, sid: str, state: str) -> str | None:
    """A refused request's problem for a session in ``state`` that should still be: its status."""
    probe = await http.status(sid, agent_id)
    return (
        ""
        if probe.code == 200 and probe.status == state
        else f"the status was {probe.describe()}, not {state!r}"
    )


async def _refused_while_parked(http: HttpStatusTarget, details: dict) -> str:
    agent_id, sid = await new_parked_session(http)

    async def changed() -> str | None:
        problem = await _refused_while(http, agent_id, sid, "awaiting_permission")
        if problem:
            return problem
        calls = await http.waiting_calls(agent_id, sid)
        if calls is not None and not any(c.get("state") == "asking" for c in calls):
            return "the session's messages no longer show its call waiting for permission"
        return ""

    sent: list[str] = []
    problem = await _after_refusals(_refusable(http, agent_id, sid, second_chat=False), changed, sent)
    details["parked"] = sent
    await http.driver.confirm(http.user_id, agent_id, sid, allow=False)
    await http.settle(agent_id, sid)
    return problem


async def _refused_while_idle(http: HttpStatusTarget, details: dict) -> str:
    agent_id, sid = await http.new_session()

    async def changed() -> str | None:
        return await _refused_while(http, agent_id, sid, "idle")

    sent: list[str] = []
    problem = await _after_refusals(_refusable(http, agent_id, sid, second_chat=False), changed, sent)
    details["idle"] = sent
    await http.settle(agent_id, sid)  # a request the service took may have started a run
    return problem


@case(
    "http.failure.refused-requests",
    level=Level.MUST,
    spec=RUNNING,
    needs=HTTP_CAPABILITY,
    slow=True,
    rules=("running", "parked", "idle"),
)
async def refused_requests_change_nothing(http: HttpStatusTarget, details: dict) -> None:
    """A request the service refuses changes nothing the session's owner reads: while a run works,
    while the session waits for permission and while it is idle, another user's chat, interrupt
    and DELETE of the session (refused as not theirs), the owner's chat whose input is no message
    and the owner's answer to a permission request never asked (and, during the run, the owner's
    second chat) leave the status as it was: running while the run's model call is in flight,
    awaiting_permission with the call still waiting, idle; and the run ends as it would have, its
    answer in the session's messages.

    Calibrated: only refusals are judged (a service that queues the second chat is conforming, and
    a request it takes ends the sequence); the run must read running before any request is sent,
    and a missing answer counts only where a run no request disturbed shows its answer."""
    http.require_driving("requests the service refuses")
    problems = Problems.listed(
        "a refused request leaves the session as it was: its status, its waiting call, its run",
        rules=("running", "parked", "idle"),
    )
    left_out: dict[str, str] = {}
    with problems.kept(details):
        for rule, part in (
            ("running", _refused_while_running),
            ("parked", _refused_while_parked),
            ("idle", _refused_while_idle),
        ):
            try:
                problem = await part(http, details)
            except (MissingInput, NotTestable) as exc:
                left_out[rule] = exc.message[:300]
                details[rule] = f"left out: {left_out[rule]}"
                continue
            if problem:
                problems.add(rule, problem)
    problems.judge()
    if len(left_out) == 3:
        raise MissingInput("no state could be judged: " + "; ".join(f"{r}: {m}" for r, m in left_out.items()))

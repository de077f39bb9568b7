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
from typing import Any

import anyio
from conformance.cases.http.states import IDLE, RUNNING, driven_session, never_started
from conformance.cases.http.status import HTTP_CAPABILITY

from conformance.core.outcomes import MissingInput, NotTestable, Violation
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

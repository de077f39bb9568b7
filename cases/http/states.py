"""HTTP `GET /sessions/{session_id}/status`: each of the four states, driven from outside.

Sessions are driven through the service's own public API: ``POST /chat/`` against the fake
OpenAI-compatible model the suite runs on 127.0.0.1, whose reply is scripted by a marker in the
message (``[slow:N]`` streams for N seconds and holds the run lease, ``[permission]`` calls a tool
that needs the user's permission, ``[external]`` one for an external executor, ``[parallel]``
both in one reply). A state the public API cannot reach is reported as not testable, with why.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx
from conformance.cases.http.status import HTTP_CAPABILITY, NOT_FOUND, Unknown404, wait_until

from conformance.core.outcomes import MissingInput, NotTestable, Problem, Problems, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.http.calibration import differing, parts_of
from conformance.targets.http.target import HttpStatusTarget, StatusProbe

# "``RUNNING``: a worker somewhere in the cluster currently holds the…"
RUNNING = requirement("agentscope-2.0.4", "running")
# "Precedence: ``RUNNING`` is decided first from the distributed sessi…"
PRECEDENCE = requirement("agentscope-2.0.4", "precedence")
# "``IDLE``: no worker is running the session, and its persisted conte…"
IDLE = requirement("agentscope-2.0.4", "idle")
# "``AWAITING_PERMISSION``: no worker is running the session, and the…"
AWAITING_PERMISSION = requirement("agentscope-2.0.4", "awaiting-permission")
# "``AWAITING_EXTERNAL_RESULT``: no worker is running the session, and…"
AWAITING_EXTERNAL = requirement("agentscope-2.0.4", "awaiting-external")
PARKED = ("awaiting_permission", "awaiting_external_result")  # the states of a session waiting on a tool call


def never_started(http: HttpStatusTarget) -> MissingInput:
    """A run that has not called the suite's model within --timeout: the spec says nothing of
    how soon a run starts (POST /chat/ is not part of it) nor of which model it calls, so nothing
    can be concluded from it."""
    return MissingInput(
        f"the run had not called its model {http.settle_time:g} s after POST /chat/ (--timeout): the spec does "
        "not say how soon a run starts or which model it calls (a worker that picks runs up later needs a "
        "longer --timeout)"
    )


async def driven_session(
    http: HttpStatusTarget, what: str, *, varied: bool = False, details: dict | None = None
) -> tuple[str, str]:
    """A new session the suite can drive; ``varied``: created with every optional parameter the
    service documents set (HttpStatusTarget.new_session), what it was created with in ``details``."""
    http.require_driving(what)
    agent_id, sid = await http.new_session(varied=varied)
    if varied and details is not None:
        details["created_with"] = http.creation_details(sid)
    return agent_id, sid


async def stop_run(http: HttpStatusTarget, agent_id: str, sid: str) -> None:
    """End a run the case has seen all it needs of: interrupted where the service offers it
    (the rest of a slow model call is not waited for), then until the session reads idle."""
    if http.offers("post", "/sessions/{session_id}/interrupt"):
        await http.driver.interrupt(http.user_id, agent_id, sid)
    await http.settle(agent_id, sid)


def expect(probe: StatusProbe, wanted: str, when: str) -> None:
    if probe.status != wanted:
        raise missed(probe, wanted, when)


def missed(probe: StatusProbe, wanted: str, when: str) -> Violation:
    return Violation(
        f"{when}, the status was {probe.describe()}",
        expected=f"status {wanted!r}",
        observed=probe.describe(),
    )


@case("http.state.idle-fresh", level=Level.MUST, spec=IDLE, needs=HTTP_CAPABILITY)
async def fresh_session_is_idle(http: HttpStatusTarget, details: dict) -> None:
    """A session that never ran is idle."""
    agent_id, sid = await driven_session(http, "a fresh session")
    expect(await http.status(sid, agent_id), "idle", "for a session that never ran")


@case("http.state.running-during-run", level=Level.MUST, spec=PRECEDENCE, needs=HTTP_CAPABILITY, slow=True)
async def running_while_the_lease_is_held(http: HttpStatusTarget, details: dict) -> None:
    """While a run holds the lease the session reads running (whatever its persisted tail says),
    for a session created with the optional parameters the service documents (another workspace).

    Calibrated: a probe counts only if it was sent and answered while the run's (slow) model call
    was in flight, so the run was working then whether the service streams its model or not and
    however late its worker picks the run up."""
    agent_id, sid = await driven_session(http, "a running session", varied=True, details=details)
    probe, _ = await probe_while_running(http, agent_id, sid, details)
    when = (
        f"for a probe sent while the run was waiting on its model and answered {probe.late:.1f} s later, once the "
        "call had ended (the status waited for the run)"
        if probe.late
        else "while the run was waiting on its model (its call still in flight)"
    )
    shown = Problems(lambda _: missed(probe, "running", when))
    if probe.status != "running":
        shown.add(None, probe.describe())
    with shown.kept(details):  # the run's settling unanswered keeps the status it already showed
        await stop_run(http, agent_id, sid)
    shown.judge()


@case("http.state.running-outlives-lease", level=Level.MUST, spec=RUNNING, needs=HTTP_CAPABILITY, slow=True)
async def running_for_a_run_longer_than_the_lease(http: HttpStatusTarget, details: dict) -> None:
    """A run that works longer than the run lease's time to live (--http-long-run) reads running
    for as long as it works: the worker renews the lease it holds, so it does not expire mid-run.
    With --http-memory-cap N, N + 2 other sessions are used while it works: pushing the running
    session out of memory takes no lease from its worker.

    Calibrated: only probes sent and answered while the run's model call was in flight count, and
    the case judges only if such probes reached the last tenth of the run (and, under the memory
    pressure, came after it)."""
    if http.long_run is None:
        raise MissingInput(
            "give --http-long-run SECONDS, more than the service's run-lease time to live, to test that a"
            " run outliving the lease still reads running"
        )
    seconds = http.long_run
    agent_id, sid = await driven_session(http, "a long run", varied=True, details=details)
    tag = await http.chat(agent_id, sid, f"[slow:{seconds:g}] answer slowly")
    request = await http.wait_for_model(tag, timeout=http.settle_time, script="slow")
    if request is None:
        raise never_started(http)
    others = None if http.memory_cap is None else http.memory_cap + 2
    used: list[str] = []  # the other sessions used so far
    wrong: tuple[StatusProbe, float] | None = None
    inside = after_pressure = 0
    latest = 0.0  # seconds into the model call of the latest probe that fell inside it
    async with anyio.create_task_group() as tg:
        if others is not None:
            details["memory_pressure"] = (
                f"{others} other sessions used while the run worked (--http-memory-cap)"
            )
            tg.start_soon(_use_other_sessions, http, others, used)
        with anyio.move_on_after(seconds + http.settle_time):  # a hang bound: the model answers in `seconds`
            while request["done"] is None:
                probe, bracketed = await http.status_in_flight(sid, agent_id, request)
                if bracketed:
                    inside += 1
                    latest = time.time() - request["at"]
                    after_pressure += len(used) == others
                    if probe.status != "running":
                        wrong = (probe, latest)
                        break
                await anyio.sleep(0.2)
        tg.cancel_scope.cancel()  # the pressure is moot once the run has ended or read wrong
    details["probes"] = inside
    if wrong is not None:
        probe, at = wrong
        if (
            others is not None
            and probe.code == 404
            and not 200 <= await http.exists_elsewhere(agent_id, sid) < 300
        ):
            raise MissingInput(
                f"under the memory pressure the service dropped the running session for good (its status and its "
                f"messages answer 404, {at:.1f} s into the run): no session left to read running"
            )
        under = f", after {len(used)} other sessions were used" if used else ""
        raise Violation(
            f"{at:.1f} s into a {seconds:g} s run (its model call still in flight{under}), the status"
            f" was {probe.describe()}",
            expected="status 'running' while the run works",
            observed=probe.describe(),
        )
    if others is not None and not after_pressure:
        raise MissingInput(
            f"the {seconds:g} s run ended before {others} other sessions had been used (a longer --http-long-run"
            " leaves them time), so the run was not observed under the memory pressure"
        )
    if latest < 0.9 * seconds:
        raise MissingInput(
            f"the latest status probe answered inside the run's {seconds:g} s model call came {latest:.1f} s"
            " into it, so the end of the run was not observed"
        )
    await http.settle(agent_id, sid)


MOST_RUNS = 32  # runs held at once at most: a cap past MOST_RUNS - 1 is not pushed by runs
PINNED_SECONDS = 4.0  # the held runs' model calls: long enough for every run to start and be probed


@case("http.state.runs-past-memory-cap", level=Level.MUST, spec=RUNNING, needs=HTTP_CAPABILITY, slow=True)
async def runs_past_the_memory_cap(http: HttpStatusTarget, details: dict) -> None:
    """More runs at once than the service keeps sessions in memory (--http-memory-cap N: N + 1
    runs, each on its model call at the same time), then each session used again (a second chat)
    and one more session used, status asked meanwhile: each held run reads running while its
    model call is in flight, every probe is answered, and once the runs have ended (interrupted
    where the service offers it) no session reads running. A cap that cannot evict a session with
    a run going must neither stop answering nor lose a run.

    Calibrated: only probes sent and answered while a run's model call was in flight count for
    it; a session is held to its end only where its run is known to have ended (its model call
    answered, its chat refused, or an interrupt accepted). A service that refuses runs past a
    limit of its own conforms; where fewer than N + 1 runs were on their model calls together,
    the rest is not testable, once what could be judged was."""
    cap = http.memory_cap
    if cap is None:
        raise MissingInput(
            "give --http-memory-cap N (the sessions the service keeps in memory) to hold more runs at once than it"
        )
    count = max(cap + 1, 2)
    if count > MOST_RUNS:
        raise MissingInput(
            f"a memory cap of {cap} needs {count} runs at once on their model calls; the suite holds at most {MOST_RUNS}"
        )
    http.require_driving("runs held at once")
    seconds = PINNED_SECONDS + 0.1 * count
    held = [await http.new_session() for _ in range(count)]
    extra = await http.new_session()
    agent_of = {sid: agent_id for agent_id, sid in [*held, extra]}
    tags: dict[str, str] = {}
    refused: dict[str, str] = {}
    for agent_id, sid in held:
        tag = f"turn-{uuid.uuid4().hex[:10]}"
        response = await http.driver.start_chat(
            http.user_id, agent_id, sid, f"[slow:{seconds:g}] hold the session ({tag})"
        )
        if response.status_code < 300:
            tags[sid] = tag
        else:
            refused[sid] = f"HTTP {response.status_code}"
    requests: dict[str, dict[str, Any]] = {}
    with anyio.move_on_after(http.settle_time):
        while len(requests) < len(tags):
            for sid, tag in tags.items():
                started = [r for r in http.model_requests(tag) if r["script"] == "slow"]
                if sid not in requests and started:
                    requests[sid] = started[0]
            await anyio.sleep(0.02)
    together = [sid for sid, request in requests.items() if request["done"] is None]
    details["runs"] = {
        "held": count,
        "on their model calls": len(requests),
        "together": len(together),
        "refused": refused,
    }
    problems = Problems.listed(
        "each held run reads running while its model call is in flight, every probe is answered, and no "
        "session reads running once its run has ended",
        lead=f"with {count} runs started at once past a memory cap of {cap}: ",
        limit=4,
    )
    short: MissingInput | None = None
    if len(together) < count:
        short = (
            never_started(http)
            if not requests
            else MissingInput(
                f"only {len(together)} of {count} runs were on their model calls together"
                + (
                    f" (the service refused {len(refused)}: {', '.join(sorted(set(refused.values())))}; a limit of "
                    "its own on runs keeps the sessions with a run going within its memory cap)"
                    if refused
                    else f" ({len(tags) - len(requests)} had not called the model within {http.settle_time:g} s)"
                )
            )
        )
    with problems.kept(details):
        if short is None:
            await _held_past_the_cap(http, problems, details, together, requests, agent_of, extra[1])
        ended = await _end_runs(http, agent_of, requests, seconds)
        if requests:
            # A run whose chat was taken but that never called the model while the others did:
            # once they have all ended it has the service to itself. Still no call --timeout
            # later, while it reads running, is a run that neither works nor ends.
            silent = {sid: tag for sid, tag in tags.items() if sid not in requests and sid not in ended}
            with anyio.move_on_after(http.settle_time):
                while silent and not all(http.model_requests(tag) for tag in silent.values()):
                    await anyio.sleep(0.05)
            for sid, tag in silent.items():
                if not http.model_requests(tag):
                    probe = await http.status(sid, agent_of[sid])
                    if probe.status == "running":
                        problems.add(
                            None,
                            f"session {sid[:40]!r} read {probe.describe()}, while its run had not called the model "
                            f"{http.settle_time:g} s (--timeout) after every other run of the service had ended "
                            f"({len(requests)} had called it)",
                        )
        for sid in agent_of:
            if sid not in ended and sid not in refused:
                continue  # a run not known to have ended may still be working
            probe = await http.wait_for(agent_of[sid], sid, {"idle", *PARKED}, timeout=http.settle_time)
            if probe.status not in ("idle", *PARKED):
                why = ended.get(sid, f"its chat was refused ({refused.get(sid)})")
                problems.add(
                    None,
                    f"{http.settle_time:g} s after its run had ended ({why}), session {sid[:40]!r} read {probe.describe()}",
                )
    problems.judge()
    if short is not None:
        raise short


async def _held_past_the_cap(
    http: HttpStatusTarget,
    problems: Problems,
    details: dict,
    together: list[str],
    requests: dict[str, dict[str, Any]],
    agent_of: dict[str, str],
    extra: str,
) -> None:
    """The held runs probed, then each session used again (a second chat: a double submit) and
    one more session used while every one has a run going: the cap must make room, or go over it,
    without losing a run or the service's answers. Then the held runs probed again: every probe
    answered, and a run whose second chat was refused (it kept its run) still reads running while
    its model call is in flight. A second chat that was taken may have replaced the run (the
    service's own way), so what its session reads is not judged here; what it leaves is."""
    probes: dict[str, list[str]] = {sid[:12]: [] for sid in together}
    details["probes while held"] = probes
    second: dict[str, int | None] = {}
    details["second chats"] = second

    async def probe_held(judged: list[str], after: str) -> None:
        for sid in together:
            probe, inside = await http.status_in_flight(sid, agent_of[sid], requests[sid])
            probes[sid[:12]].append(probe.describe())
            if sid in judged and inside and probe.status != "running":
                problems.add(
                    None, f"a run on its model call read {probe.describe()} (session {sid[:40]!r}{after})"
                )

    async def chat_again(sid: str) -> None:
        second[sid[:12]] = await _chat_quietly(http, (agent_of[sid], sid))

    await probe_held(together, "")
    async with anyio.create_task_group() as tg:
        for sid in [*together, extra]:
            tg.start_soon(chat_again, sid)
    kept = [sid for sid in together if (code := second.get(sid[:12])) is not None and code >= 400]
    await probe_held(kept, ", after its second chat was refused and one more session was used")


async def _end_runs(
    http: HttpStatusTarget, agent_of: dict[str, str], requests: dict[str, dict[str, Any]], seconds: float
) -> dict[str, str]:
    """Each session's run interrupted where the service offers it, then the held model calls
    waited for: the sessions whose run is known to have ended, with how."""
    ended: dict[str, str] = {}
    if http.offers("post", "/sessions/{session_id}/interrupt"):
        for sid, agent_id in agent_of.items():
            answer = await http.driver.interrupt(http.user_id, agent_id, sid)
            if answer.status_code < 300:
                ended[sid] = f"interrupted: HTTP {answer.status_code}"
    with anyio.move_on_after(seconds + http.settle_time):
        while any(request["done"] is None for request in requests.values()):
            await anyio.sleep(0.05)
    for sid, request in requests.items():
        if request["done"] is not None:
            ended.setdefault(sid, "its model call answered")
    return ended


async def _chat_quietly(http: HttpStatusTarget, session: tuple[str, str]) -> int | None:
    """A short run on ``session``, whatever answers it: its HTTP code, or None (no answer within
    --timeout, or none at all)."""
    agent_id, sid = session
    with contextlib.suppress(httpx.HTTPError), anyio.move_on_after(http.harness.config.timeout):
        return (await http.driver.start_chat(http.user_id, agent_id, sid, "say OK")).status_code
    return None


async def _use_other_sessions(http: HttpStatusTarget, count: int, used: list[str]) -> None:
    """``count`` other sessions of the caller, each created and used for one turn, one after the
    other (``used`` lists each once its turn has ended): the pressure that pushes the least recently used
    sessions out of a capped memory."""
    for _ in range(count):
        agent_id, sid = await http.new_session()
        tag = await http.chat(agent_id, sid, "say OK")
        await http.wait_for_model(tag, timeout=http.settle_time)
        await http.settle(agent_id, sid)
        used.append(sid)


async def probe_while_running(
    http: HttpStatusTarget, agent_id: str, sid: str, details: dict
) -> tuple[StatusProbe, dict[str, Any]]:
    """Start a 3 s run and probe until a probe falls inside its model call: the first such probe
    that reads running, else the last that fell inside; and the model request (its ``done`` is
    None while the run still waits on it).

    A probe sent while the call was in flight but answered only after it ended, far later than
    the session's probes are answered when nothing runs (the status waited for the run), is
    evidence too: it is returned when no probe fell inside. Not testable only when no probe was
    sent while the call was in flight."""
    quiet = []
    for _ in range(3):  # how long a probe of this session takes when nothing runs
        started = time.monotonic()
        await http.status(sid, agent_id)
        quiet.append(time.monotonic() - started)
    tag = await http.chat(agent_id, sid, "[slow:3] answer slowly")
    request = await http.wait_for_model(tag, timeout=http.settle_time, script="slow")
    if request is None:
        raise never_started(http)
    inside: StatusProbe | None = None
    late: tuple[StatusProbe, float] | None = None
    with anyio.move_on_after(3 + http.settle_time):  # a hang bound: the model answers in 3 s
        while request["done"] is None:
            sent, started = time.time(), time.monotonic()
            probe, bracketed = await http.status_in_flight(sid, agent_id, request)
            took = time.monotonic() - started
            if bracketed:
                inside = probe
                if probe.status == "running":
                    break
            elif request["at"] <= sent and (late is None or took > late[1]):
                late = (probe, took)
            await anyio.sleep(0.05)
    details["seen"] = inside.describe() if inside else None
    if inside is not None:
        return inside, request
    waited = LATE_FACTOR * max(quiet)
    if late is not None and late[1] > max(LATE_MIN, waited) and late[0].status != "running":
        details["late"] = (
            f"sent while the run's model call was in flight, answered {late[1]:.1f} s later, after it ended "
            f"(probes of the session take {max(quiet) * 1000:.0f} ms when nothing runs): {late[0].describe()}"
        )
        late[0].late = late[1]
        return late[0], request
    raise MissingInput("no status probe was answered while the run's model call was in flight")


LATE_FACTOR = 10  # a probe this many times slower than the session's quiet probes waited for something
LATE_MIN = 0.5  # seconds: and at least this slow


@case("http.state.idle-after-run", level=Level.MUST, spec=IDLE, needs=HTTP_CAPABILITY, slow=True)
async def idle_once_the_run_ends(http: HttpStatusTarget, details: dict) -> None:
    """Once the run has ended (and released its lease), the session is idle again.

    Calibrated: the wait starts once the run's model call has been answered, so an idle read
    before a queued run even started does not count."""
    agent_id, sid = await driven_session(http, "a session after a run", varied=True, details=details)
    tag = await http.chat(agent_id, sid, "[slow:1] answer")
    request = await http.wait_for_model(tag, timeout=http.settle_time, script="slow")
    if request is None:
        raise never_started(http)
    with anyio.move_on_after(http.settle_time):
        while request["done"] is None:
            await anyio.sleep(0.05)
    probe = await http.wait_for(agent_id, sid, "idle", timeout=http.settle_time)
    expect(probe, "idle", f"{http.settle_time:g} s after the run's 1 s model call was answered")


@case("http.state.awaiting-permission", level=Level.MUST, spec=AWAITING_PERMISSION, needs=HTTP_CAPABILITY)
async def parked_on_permission(http: HttpStatusTarget, details: dict) -> None:
    """A turn that ends waiting on a permission request reads awaiting_permission.

    Calibrated: judged only once the session's messages show its tool call waiting for
    permission (state ``asking``), so a toolkit that asks no permission for the model's call is
    not testable, not a failure."""
    agent_id, sid = await driven_session(http, "a session waiting for permission")
    await http.chat(agent_id, sid, "[permission] write the probe file")
    probe = await http.wait_for(agent_id, sid, "awaiting_permission", timeout=http.settle_time)
    await expect_parked_tail(http, agent_id, sid, "asking", "tool call waiting for the user's permission")
    if probe.status == "awaiting_permission":
        await http.driver.confirm(http.user_id, agent_id, sid, allow=False)
        await http.settle(agent_id, sid)
    expect(probe, "awaiting_permission", "after the model asked for a tool that needs the user's permission")


@case(
    "http.state.parked-only-by-tool-calls", level=Level.MUST, spec=AWAITING_PERMISSION, needs=HTTP_CAPABILITY
)
async def no_tool_call_no_parking(http: HttpStatusTarget, details: dict) -> None:
    """Only a tool call parks a session: a turn whose tail holds a block that is not a tool call,
    marked ``"state": "asking"`` (a client may send an assistant message with such a block, and the
    run answers into it), ends idle.

    Calibrated: judged only if the service took the input and the turn ended (whether it asked its
    model or not), and only once the session's messages show no tool call waiting in the tail; a
    service that refuses an assistant-role input is not testable here."""
    agent_id, sid = await driven_session(http, "a session whose tail holds a marked non-tool block")
    tag = f"turn-{uuid.uuid4().hex[:10]}"
    message = {
        "name": "assistant",
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Should I ask first?", "state": "asking"},
            {"type": "text", "text": f"Let me answer. ({tag})"},
        ],
    }
    before = await http.snapshot(agent_id, sid)
    drift = differing(before, await http.snapshot(agent_id, sid))
    # Refusing an assistant-role input breaks nothing in the status spec: not testable, never failed.
    response = await http.driver.post_input(http.user_id, agent_id, sid, message)
    if response.status_code >= 300:
        raise MissingInput(
            f"POST /chat/ with an assistant-role message answered HTTP {response.status_code}: "
            f"{response.text[:300]}"
        )

    # A service may queue the input: until its messages change (the input, or a reply to it), an
    # idle status says nothing of the turn.
    async def messages_changed() -> bool:
        return "messages" in parts_of(differing(before, await http.snapshot(agent_id, sid)) - drift)

    if not await wait_until(messages_changed, http.settle_time):
        raise MissingInput(
            f"{http.settle_time:g} s after POST /chat/, the session's messages had not changed"
        )
    settled = {"idle", "awaiting_permission", "awaiting_external_result"}
    probe = await http.wait_for(agent_id, sid, settled, timeout=http.settle_time)
    if probe.status not in settled:
        raise MissingInput(
            f"the turn had not ended {http.settle_time:g} s after POST /chat/: {probe.describe()}"
        )
    calls = await http.waiting_calls(agent_id, sid)
    details["tail_calls"] = calls
    if calls is None or calls:
        raise MissingInput(
            f"the session's messages show tool calls waiting in the tail ({calls!r:.200}) or cannot be read,"
            " so the turn did not end as the case needs"
        )
    expect(probe, "idle", "after a turn whose tail holds a thinking block marked asking but no tool call")


async def expect_parked_tail(http: HttpStatusTarget, agent_id: str, sid: str, state: str, what: str) -> None:
    """Not testable unless the session's messages show a tool call of the tail in ``state``."""
    calls = await http.waiting_calls(agent_id, sid)
    if not calls or not any(c.get("state") == state for c in calls):
        raise MissingInput(
            f"the session's messages show no {what} (state {state!r}; the last reply's waiting calls: "
            f"{calls!r:.200}), so the turn did not park as the case needs"
        )


async def new_parked_session(http: HttpStatusTarget) -> tuple[str, str]:
    """A new session parked on a permission request (agent id, session id), as a precondition:
    a turn that does not park is an input the case lacks (MissingInput), not a finding."""
    agent_id, sid = await http.new_session()
    try:
        await parked_for_permission(http, agent_id, sid)
    except NotTestable as exc:
        raise MissingInput(exc.message) from None
    return agent_id, sid


async def parked_for_permission(http: HttpStatusTarget, agent_id: str, sid: str) -> StatusProbe:
    """Park the session on a permission request, for a case that needs it parked: its
    awaiting_permission probe. Not testable when the messages show no call waiting for
    permission (the toolkit asked none); a failed prerequisite when they do and the status never
    says so (see http.state.awaiting-permission)."""
    await http.chat(agent_id, sid, "[permission] write the probe file")
    parked = await http.wait_for(agent_id, sid, "awaiting_permission", timeout=http.settle_time)
    await expect_parked_tail(http, agent_id, sid, "asking", "tool call waiting for the user's permission")
    if parked.status != "awaiting_permission":
        raise NotTestable(
            f"the session never read awaiting_permission ({parked.describe()}): see http.state.awaiting-permission"
        )
    return parked


async def parked_for_external(http: HttpStatusTarget, agent_id: str, sid: str, details: dict) -> StatusProbe:
    """As :func:`parked_for_permission`, on a tool call waiting for an external executor."""
    parked = await park_on_external(http, agent_id, sid, details)
    await expect_parked_tail(http, agent_id, sid, "submitted", "tool call waiting for an external executor")
    if parked.status != "awaiting_external_result":
        raise NotTestable(
            f"the session never read awaiting_external_result ({parked.describe()}): see http.state.awaiting-external"
        )
    return parked


@case("http.state.awaiting-external", level=Level.MUST, spec=AWAITING_EXTERNAL, needs=HTTP_CAPABILITY)
async def parked_on_external_executor(http: HttpStatusTarget, details: dict) -> None:
    """A turn that ends waiting on an external executor reads awaiting_external_result."""
    agent_id, sid = await driven_session(http, "a session waiting for an external executor")
    probe = await park_on_external(http, agent_id, sid, details)
    await expect_parked_tail(http, agent_id, sid, "submitted", "tool call waiting for an external executor")
    if probe.status == "awaiting_external_result":
        await http.driver.submit_external_result(http.user_id, agent_id, sid)
        await http.settle(agent_id, sid)
        return
    expect(probe, "awaiting_external_result", "after the model called a tool run by an external executor")


@case("http.state.permission-over-external", level=Level.MUST, spec=AWAITING_EXTERNAL, needs=HTTP_CAPABILITY)
async def permission_outranks_external(http: HttpStatusTarget, details: dict) -> None:
    """A turn parked on two tool calls of one reply (parallel tool calls), one waiting for the
    user's permission and one for an external executor, reads awaiting_permission:
    awaiting_external_result holds only "with no peer awaiting permission".

    Calibrated: judged only on a probe answered between two reads of the session's messages that
    both show the two calls waiting (one asking, one submitted; a call that has stopped waiting
    does not wait again without a new turn). A service that runs a reply's calls one at a time
    (the second not dispatched while the first asks) or offers no external tool is not testable.

    Both orders of the two calls in the reply are tried, each in its own session. Then, with the
    permission call first, the external call alone is answered: while the messages show the
    permission call still asking and nothing submitted, the status must still be
    awaiting_permission (a call answered does not release its peer)."""
    for order, marker in PARALLEL_ORDERS.items():
        await _judge_parallel(http, details, order, marker, partial_step=order == "permission call first")


# A precedence rule must hold in every order of the reply's calls: a service reading the parked
# state off the first waiting call agrees with the rule when the permission call comes first.
PARALLEL_ORDERS = {
    "permission call first": "[parallel]",
    "external call first": "[parallel:external-first]",
}


async def _judge_parallel(
    http: HttpStatusTarget, details: dict, order: str, marker: str, *, partial_step: bool
) -> None:
    agent_id, sid = await driven_session(http, "a session waiting on two parallel tool calls")
    tag = await http.chat(agent_id, sid, f"{marker} write the probe file and ask the user")
    if await http.wait_for_model(tag, timeout=http.settle_time, script="parallel") is None:
        raise never_started(http)
    partial = None
    try:
        await http.wait_for(agent_id, sid, set(SETTLED), timeout=http.settle_time)
        before = await http.waiting_calls(agent_id, sid)
        probe = await http.status(sid, agent_id)
        after = await http.waiting_calls(agent_id, sid)
        if partial_step and _both_waiting(after):
            shown = Problems(lambda _: _precedence_broken(order, probe))
            if _both_waiting(before) and probe.status != "awaiting_permission":
                shown.add(None, probe.describe())
            # The partial answer's probes unanswered keep the precedence already shown broken.
            with shown.kept(details):
                partial = await _after_partial_answer(http, agent_id, sid)
    finally:
        await http.driver.interrupt(http.user_id, agent_id, sid)  # no parked turn left behind
    details[f"tail_calls ({order})"] = _named(after)
    if partial_step:
        details["after_partial_answer"] = (
            partial.describe() if partial else "not judged: the permission call never waited alone"
        )
    if not (_both_waiting(before) and _both_waiting(after)):
        raise MissingInput(
            f"the session's messages did not show both calls of the reply ({order}) waiting at once, before and "
            "after the probe (one asking for permission, one submitted to an external executor; waiting: "
            f"{_named(after)}): " + _why_not_both(http, tag, before, after)
        )
    if probe.status != "awaiting_permission":
        raise _precedence_broken(order, probe)
    if partial is not None and partial.status != "awaiting_permission":
        raise Violation(
            "once the external executor's result was submitted while the peer call still asked for permission "
            f"(the messages showed it asking, nothing submitted, before and after the probe), the status was "
            f"{partial.describe()}: a tool call still waits for the user's permission",
            expected="status 'awaiting_permission'",
            observed=partial.describe(),
        )


def _precedence_broken(order: str, probe: StatusProbe) -> Violation:
    return Violation(
        f"while one reply's tool calls waited ({order}), one for the user's permission and one for an external "
        f"executor (the messages showed both before and after the probe), the status was {probe.describe()}: "
        "awaiting_external_result applies only with no peer awaiting permission",
        expected="status 'awaiting_permission'",
        observed=probe.describe(),
    )


async def _after_partial_answer(http: HttpStatusTarget, agent_id: str, sid: str) -> StatusProbe | None:
    """The status once only the external call of the two is answered, judged only while the
    messages show the permission call alone still waiting; None when they never did."""
    await http.driver.submit_external_result(http.user_id, agent_id, sid)
    with anyio.move_on_after(http.settle_time):
        while True:
            before = await http.waiting_calls(agent_id, sid)
            if _asking_alone(before):
                probe = await http.status(sid, agent_id)
                if probe.status == "running":  # the resumed run still holds the lease
                    await anyio.sleep(0.05)
                    continue
                if _asking_alone(await http.waiting_calls(agent_id, sid)):
                    return probe
            await anyio.sleep(0.05)
    return None


def _asking_alone(calls: list[dict[str, Any]] | None) -> bool:
    return calls is not None and {c.get("state") for c in calls} == {"asking"}


SETTLED = ("awaiting_permission", "awaiting_external_result", "idle")


def _both_waiting(calls: list[dict[str, Any]] | None) -> bool:
    return calls is not None and {"asking", "submitted"} <= {c.get("state") for c in calls}


def _named(calls: list[dict[str, Any]] | None) -> str:
    if calls is None:
        return "the messages could not be read"
    return ", ".join(f"{str(c.get('name'))[:40]} ({str(c.get('state'))[:20]})" for c in calls[:8]) or "none"


def _why_not_both(
    http: HttpStatusTarget, tag: str, before: list[dict[str, Any]] | None, calls: list[dict[str, Any]] | None
) -> str:
    if _both_waiting(before):
        return "a call stopped waiting between two reads of the messages, so the probe between them judges nothing"
    if "AskUser" not in _tools_offered(http, tag):
        return (
            "the agent's toolkit offers the model no tool dispatched to an external executor; on AgentScope, AskUser "
            "is external but only added with create_app(extra_agent_tools=…)"
        )
    states = {c.get("state") for c in calls or []}
    if "asking" in states:
        return (
            "the service ran the reply's tool calls one at a time: the one asking for permission parked the turn "
            "before the other was dispatched, so no tail held both"
        )
    if "submitted" in states:
        return (
            "the service asked no permission for the reply's permission tool call (or ran the calls one at a time "
            "and parked on the external one first), so no tail held both"
        )
    return "the turn did not park on the reply's tool calls"


def _tools_offered(http: HttpStatusTarget, tag: str) -> set[str]:
    """The names of the tools the run offered the fake model."""
    return {
        str((tool.get("function") or {}).get("name"))
        for request in http.model_requests(tag)
        for tool in request["body"].get("tools") or []
        if isinstance(tool, dict)
    }


async def park_on_external(http: HttpStatusTarget, agent_id: str, sid: str, details: dict) -> StatusProbe:
    """Have the model call a tool run by an external executor; the status once the turn has
    parked (or settled). Not testable when the agent offers the model no such tool."""
    tag = await http.chat(agent_id, sid, "[external] ask the user")
    await http.wait_for_model(tag, timeout=http.settle_time)
    probe = await http.wait_for(agent_id, sid, {"awaiting_external_result", "idle"}, timeout=http.settle_time)
    if probe.status == "awaiting_external_result":
        return probe
    offered = _tools_offered(http, tag)
    details["tools_offered_to_the_model"] = sorted(offered)
    if "AskUser" not in offered:
        raise MissingInput(
            "not reachable through the public API: the agent's toolkit offers the model no tool dispatched to an "
            f"external executor (tools offered: {sorted(offered) or 'none'}); on AgentScope, AskUser is external but "
            "only added with create_app(extra_agent_tools=…)"
        )
    return probe


def still_in(http: HttpStatusTarget, agent_id: str, sid: str, state: object) -> Callable[[], Awaitable[bool]]:
    """Whether the owner still reads ``state``: a re-asked probe confirms only in the same state."""

    async def held() -> bool:
        return (await http.status(sid, agent_id)).status == state

    return held


async def expect_hidden(http: HttpStatusTarget, agent_id: str, sid: str, details: dict) -> list[str]:
    """Another user and a wrong agent_id get the unknown-session 404 (the same answer as for an
    unknown id, outside the fields that vary per request) while the session is in its state."""
    state = (await http.status(sid, agent_id)).status
    unknown = await Unknown404.ask(http, agent_id, http.other_user_id)
    theirs = await http.status(sid, agent_id, user_id=http.other_user_id)
    wrong_agent = await http.status(sid, http.other_agent_id(agent_id))
    problems = []
    if theirs.code != 404:
        problems.append(f"another user got {theirs.describe()}")
    elif not unknown.consistent:
        details["body_not_compared"] = "two unknown ids got different answers"
    elif await unknown.telling(
        http, agent_id, http.other_user_id, theirs, sid, held=still_in(http, agent_id, sid, state)
    ):
        problems.append(f"another user got {theirs.describe()}, not the unknown-session answer")
    elif not unknown.comparable:
        details["body_not_compared"] = (
            "the unknown-session answer varies in every field from one unknown id to the next"
        )
    if wrong_agent.code != 404:
        problems.append(f"a wrong agent_id got {wrong_agent.describe()}")
    return problems


def _shown_while(when: str) -> Callable[[list[Problem]], Violation]:
    """The Violation of what another user and a wrong agent_id got ``when``."""
    return lambda shown: Violation(
        f"{when}: " + "; ".join(p for _, p in shown),
        expected="HTTP 404, the same body as for a session that does not exist",
        observed=[p for _, p in shown],
    )


@case("http.ownership.while-running", level=Level.MUST, spec=NOT_FOUND, needs=HTTP_CAPABILITY, slow=True)
async def ownership_holds_while_running(http: HttpStatusTarget, details: dict) -> None:
    """While the session runs, another user and a wrong agent_id still get the unknown-session 404."""
    agent_id, sid = await driven_session(http, "a running session", varied=True, details=details)
    running, request = await probe_while_running(http, agent_id, sid, details)
    if running.status != "running":
        raise NotTestable(
            f"the session did not read running during its run ({running.describe()}): see http.state.running-during-run"
        )
    problems = Problems(_shown_while("while the session was running"))
    problems.extend((None, p) for p in await expect_hidden(http, agent_id, sid, details))
    still_running = request["done"] is None
    with problems.kept(details):
        await stop_run(http, agent_id, sid)
    problems.judge()
    if not still_running:
        raise MissingInput("the run ended before the other callers' probes were answered")


@case("http.ownership.while-parked", level=Level.MUST, spec=NOT_FOUND, needs=HTTP_CAPABILITY)
async def ownership_holds_while_parked(http: HttpStatusTarget, details: dict) -> None:
    """While the session waits for permission, another user and a wrong agent_id still get 404."""
    agent_id, sid = await driven_session(http, "a session waiting for permission")
    await parked_for_permission(http, agent_id, sid)
    problems = Problems(_shown_while("while the session waited for permission"))
    problems.extend((None, p) for p in await expect_hidden(http, agent_id, sid, details))
    with problems.kept(details):
        await http.driver.confirm(http.user_id, agent_id, sid, allow=False)
        await http.settle(agent_id, sid)
    problems.judge()


@case("http.ownership.while-external", level=Level.MUST, spec=NOT_FOUND, needs=HTTP_CAPABILITY)
async def ownership_holds_while_awaiting_external(http: HttpStatusTarget, details: dict) -> None:
    """While the session waits for an external executor, another user and a wrong agent_id still get 404."""
    agent_id, sid = await driven_session(http, "a session waiting for an external executor")
    await parked_for_external(http, agent_id, sid, details)
    problems = Problems(_shown_while("while the session waited for an external executor"))
    problems.extend((None, p) for p in await expect_hidden(http, agent_id, sid, details))
    with problems.kept(details):
        await http.driver.submit_external_result(http.user_id, agent_id, sid)
        await http.settle(agent_id, sid)
    problems.judge()

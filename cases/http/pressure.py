"""HTTP status under pressure: twin sessions, one probed, compared after time, memory, use and a restart.

GET is safe (RFC 9110): a probe changes nothing of the session, including what shows only
later. Each case makes three pairs of twins (conformance.targets.http.twins: a calibration pair
no probe asks, a pair whose first-created twin is probed, one whose second is), applies one
pressure to all of them, and compares each twin with the unprobed twin in its place. The
service's policies are the user's to state (``--http-idle-evict-after``, ``--http-memory-cap``,
``--http-request-limit``); without them the thorough profile looks for a policy within bounds,
and the other profiles report the case not testable, naming the option.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
from conformance.cases.http.status import HTTP_CAPABILITY, SAFE

from conformance.core.outcomes import MissingInput, Violation
from conformance.core.registry import Level, case
from conformance.targets.http.target import HttpStatusTarget
from conformance.targets.http.twins import PAIRS, WAITING, Fate, Twin, TwinRun, judge, no_longer_waiting

RULES = ("probed", "neighbour", "consistent")
SETTLE = 0.5  # seconds after the last probe before the twins are observed: "a moment later"
DISCOVERY_SESSIONS = 64  # sessions the thorough profile pushes the twins back by, without --http-memory-cap
USE_PROBES = 24  # probes of the probed twin before the use pressure, without --http-request-limit


def _thorough(http: HttpStatusTarget) -> bool:
    return http.harness.config.profile == "thorough"


async def twins_under(
    http: HttpStatusTarget,
    details: dict,
    what: str,
    apply: Callable[[TwinRun, list[Twin]], Awaitable[None]],
    unobserved: Callable[[dict[tuple[str, int], Fate]], str | None],
    *,
    together: bool,
    needs_calibration: bool = False,
    settle: float = SETTLE,
) -> None:
    """The twins' run: the calibration pair made and put under ``apply`` on its own, then the two
    probed pairs (together, or one after the other), probed (the probed twins only) before, during
    and after the pressure, observed, and all three judged."""
    http.require_driving("twin sessions")
    run = TwinRun(http, details)
    fates: dict[tuple[str, int], Fate] = {}
    problems: list[str] = []

    async def through(twins: list[Twin]) -> None:
        await run.baseline(twins)
        await run.treat(twins)
        await apply(run, twins)
        if any(t.probed for t in twins):
            await run.treat(twins)
            await anyio.sleep(settle)
        seen, wrong = await run.observe(twins)
        fates.update(seen)
        problems.extend(wrong)

    layout = _layout(http, together)
    unseen: str | None = None
    if layout != "pairs together":
        details["layout"] = layout
    for name in PAIRS:
        if layout == "twins one at a time":
            for place in (1, 2):
                await through([await run.one(name, place)])
        elif name == "calibration" or layout == "pair by pair":  # calibration: no probe anywhere meanwhile
            await through(list(await run.pair(name)))
        elif name == PAIRS[1]:
            await through([twin for other in PAIRS[1:] for twin in await run.pair(other)])
        if name == "calibration":
            unseen = unobserved(fates)
            if unseen and needs_calibration:
                raise MissingInput(unseen)
    details["twins"] = {
        t.label: {"probes": t.probes, "fate": fates[(t.pair, t.place)].describe()} for t in run.twins
    }
    verdict = judge(fates, unseen, problems)
    if verdict.notes:
        details["not_repeated"] = verdict.notes
    if verdict.rule == "unobserved":
        raise MissingInput(verdict.message)
    if verdict.rule:
        raise Violation(
            f"after {what}: {verdict.message}",
            expected="each twin ends as the unprobed twin in its place, its status agreeing with its messages",
            observed=verdict.observed,
            rule=verdict.rule,
        )


def _layout(http: HttpStatusTarget, together: bool) -> str:
    """How the twins go through their pressure: the two probed pairs together where the service
    holds both (``together``), else pair by pair, and twin by twin where it holds no pair
    (--http-memory-cap 1): a cap decides which twins are in memory when the pressure starts, and
    twins compared from different starts show nothing."""
    cap = http.memory_cap
    if cap is not None and cap < 2:
        return "twins one at a time"
    if together and (cap is None or cap >= 4):
        return "pairs together"
    return "pair by pair"


def unchanged(what: str) -> Callable[[dict[tuple[str, int], Fate]], str | None]:
    """Why the pressure showed nothing: it changed no field of the calibration pair's view."""

    def why(fates: dict[tuple[str, int], Fate]) -> str | None:
        if any(fates[("calibration", place)].changed for place in (1, 2)):
            return None
        return (
            f"{what} changed nothing the service shows of the twins no probe asked (status, messages, listing "
            "entry), so what a probe might have changed could not show either"
        )

    return why


@case("http.twins.idle-eviction", level=Level.MUST, spec=SAFE, needs=HTTP_CAPABILITY, rules=RULES, slow=True)
async def twins_past_idle_eviction(http: HttpStatusTarget, details: dict) -> None:
    """Twins held past the service's idle eviction (--http-idle-evict-after), the probed ones
    probed all along: each ends as the unprobed twin in its place (a probe resets no idle timer
    and brings no evicted session back), its status agreeing with its messages.

    Calibrated: all three pairs wait together; the calibration pair's view must show the eviction
    (some field changed), else nothing is concluded. Without the option, the thorough profile
    holds the twins for --hold seconds and judges only if the calibration pair changed."""
    seconds = http.idle_evict_after
    if seconds is None:
        if not _thorough(http):
            raise MissingInput(
                "give --http-idle-evict-after SECONDS (the service's idle eviction) to hold twin sessions past it; "
                "the thorough profile looks for one within --hold seconds"
            )
        seconds = http.harness.config.hold_seconds
        details["discovery"] = f"held {seconds:g} s (--hold) without --http-idle-evict-after"
    wait = seconds + 1.0 + 0.1 * seconds  # the service's sweeper may look a moment after the deadline

    async def apply(run: TwinRun, twins: list[Twin]) -> None:
        await run.hold(twins, wait)

    await twins_under(
        http, details, f"{wait:g} s with no use", apply, unchanged(f"waiting {wait:g} s"), together=True
    )


@case("http.twins.memory-cap", level=Level.MUST, spec=SAFE, needs=HTTP_CAPABILITY, rules=RULES, slow=True)
async def twins_past_memory_cap(http: HttpStatusTarget, details: dict) -> None:
    """Twins pushed out of the service's memory (--http-memory-cap N: N + 2 newer sessions used
    after them, the probed twin probed after each): each ends as the unprobed twin in its place (a
    probe counts as no use, loads nothing back), its status agreeing with its messages.

    Calibrated: pair by pair, so each pair is pushed by its own sessions; the calibration pair's
    view must show the eviction. Without the option, the thorough profile pushes by 64."""
    cap = http.memory_cap
    if cap is None:
        if not _thorough(http):
            raise MissingInput(
                "give --http-memory-cap N (the sessions the service keeps in memory) to push twin sessions out of "
                f"it; the thorough profile looks for a cap of up to {DISCOVERY_SESSIONS - 2}"
            )
        cap = DISCOVERY_SESSIONS - 2
        details["discovery"] = f"pushed by {DISCOVERY_SESSIONS} sessions without --http-memory-cap"
    newer = cap + 2

    async def apply(run: TwinRun, twins: list[Twin]) -> None:
        for _ in range(newer):
            agent_id, sid = await http.new_session()
            tag = await http.chat(agent_id, sid, "say OK")
            await http.wait_for_model(tag, timeout=http.settle_time)
            await http.settle(agent_id, sid)
            await run.treat(twins, burst=2)

    await twins_under(
        http,
        details,
        f"{newer} newer sessions were used",
        apply,
        unchanged(f"using {newer} newer sessions"),
        together=False,
    )


@case(
    "http.twins.request-allowance", level=Level.MUST, spec=SAFE, needs=HTTP_CAPABILITY, rules=RULES, slow=True
)
async def twins_then_used(http: HttpStatusTarget, details: dict) -> None:
    """The probed twins probed more often than the service's per-session allowance
    (--http-request-limit N: N + 1 probes, else 24), then every twin used once (its permission
    request answered, or a chat): each request is taken as on the unprobed twin in its place, and
    each twin ends alike. A probe spends no allowance.

    Calibrated: the calibration pair's requests must be taken, else nothing is concluded (the
    service refuses them whatever the probes)."""
    probes = max(USE_PROBES, (http.request_limit or 0) + 1)
    details["probes_each"] = probes

    async def apply(run: TwinRun, twins: list[Twin]) -> None:
        for _ in range(-(-(probes - 9) // 9)):  # a probe and a burst of 8 each, 9 already sent
            await run.treat(twins)
        for twin in twins:
            twin.answer = await _use(http, run, twin)
        for twin in twins:
            await run.rest(twin, answered=True)

    def refused(fates: dict[tuple[str, int], Fate]) -> str | None:
        answers = [fates[("calibration", place)].answer for place in (1, 2)]
        if all(a == "accepted" for a in answers):
            return None
        return (
            f"the requests to the twins no probe asked were refused too ({', '.join(answers)}): the service "
            "refuses them whatever the probes"
        )

    await twins_under(http, details, "each twin was used once", apply, refused, together=True, settle=0.0)


async def _use(http: HttpStatusTarget, run: TwinRun, twin: Twin) -> str:
    """The twin's one use: the answer to its permission request (allow), or a chat."""
    if run.parks:
        messages = await http.driver.messages(http.user_id, twin.agent_id, twin.sid)
        if messages.status_code >= 300:  # what the answer is made of cannot be read: refused already
            return f"HTTP {messages.status_code} (its messages, read to answer it)"
        response = await http.driver.confirm(http.user_id, twin.agent_id, twin.sid, allow=True)
    else:
        response = await http.prompt(twin.agent_id, twin.sid, "hello again")
    return "accepted" if response.status_code < 300 else f"HTTP {response.status_code}"


@case(
    "http.twins.restart",
    level=Level.MUST,
    spec=SAFE,
    needs=HTTP_CAPABILITY,
    rules=(*RULES, "durable", "deleted"),
    slow=True,
)
async def twins_across_a_restart(http: HttpStatusTarget, details: dict) -> None:
    """Twins across a restart of the service (its command, --http-cmd), the probed ones probed
    before and after it: each ends as the unprobed twin in its place (a probe leaves nothing a
    restart acts on), its status agreeing with its messages. And a session parked on an external
    executor, which nothing answers, still awaits its result after it (rule ``durable``): the parked
    state is persisted, and a restart answers no call (not even with a result of its own making);
    a session parked on a permission request likewise.
    And a session deleted before
    the restart (where the service offers DELETE) is still 404 after it (rule ``deleted``).

    Calibrated: judged only if the service kept the calibration pair across the restart (its
    messages still answer); a service that keeps no session has nothing to compare. A parked
    session is judged only if its messages showed its call waiting before the restart."""
    if not http.harness.config.restartable:
        raise MissingInput(
            "the service was given by --http-url, so the suite cannot restart it: pass --http-cmd CMD"
        )
    parked = [
        await _parked_witness(http, text)
        for text in ("[external] ask the user", "[permission] write the file")
    ]
    doomed = [await http.new_session()] if http.deletes() else []
    if not doomed:
        details["deleted_before_restart"] = "nothing: the service offers no DELETE"
    lost: list[str] = []
    resurrected: list[str] = []

    async def apply(run: TwinRun, twins: list[Twin]) -> None:
        # Deleted right before the restart: a store that never drops a record brings it back.
        answers = [
            (agent_id, sid, await http.driver.delete_session(http.user_id, agent_id, sid))
            for agent_id, sid in doomed
        ]
        if answers:  # what the rule had to judge, shown: a DELETE not answered 2xx leaves it nothing
            details["deleted_before_restart"] = [
                f"DELETE of {sid}: HTTP {answer.status_code}" for _, sid, answer in answers
            ]
        deleted = [(agent_id, sid) for agent_id, sid, answer in answers if 200 <= answer.status_code < 300]
        doomed.clear()
        await http.restart()
        for agent_id, sid in deleted:
            after = await http.status(sid, agent_id)
            if after.code != 404:
                resurrected.append(
                    f"session {sid}, deleted before the restart, answered {after.describe()} after it"
                )
        calibration = twins[0]
        if not 200 <= await http.exists_elsewhere(calibration.agent_id, calibration.sid) < 300:
            http.forget_agent()  # the next case makes its sessions with an agent the service knows
        for witness in parked:
            if witness is not None:
                lost.extend(await _lost_across_restart(http, *witness))
        parked.clear()  # judged across the first restart

    def kept(fates: dict[tuple[str, int], Fate]) -> str | None:
        if all(fates[("calibration", place)].messages == "HTTP 200" for place in (1, 2)):
            return None
        return "the service keeps no session across a restart (the messages of the twins no probe asked are gone)"

    await twins_under(
        http, details, "a restart of the service", apply, kept, together=True, needs_calibration=True
    )
    if lost:
        raise Violation(
            f"after a restart of the service: {'; '.join(lost + resurrected)}",
            expected="a parked call nothing answered still awaits its result after a restart, and the status reads "
            "its awaiting_* state",
            observed=lost + resurrected,
            rule="durable",
        )
    if resurrected:
        raise Violation(
            f"after a restart of the service: {'; '.join(resurrected)}",
            expected="HTTP 404: a deleted session does not exist, across a restart too",
            observed=resurrected,
            rule="deleted",
        )


async def _parked_witness(http: HttpStatusTarget, text: str) -> tuple[str, str, list[dict]] | None:
    """A session whose turn parked on the call ``text`` asks for, told by its messages alone (no
    status probe: it is judged by what the restart does), with its waiting calls; None where the
    service did not park it (no such tool, no park)."""
    agent_id, sid = await http.new_session()
    tag = await http.chat(agent_id, sid, text)
    if await http.wait_for_model(tag, timeout=http.settle_time) is None:
        return None
    run = TwinRun(http, {})
    await run.rest(Twin("witness", 1, agent_id, sid, probed=False))
    calls = await http.waiting_calls(agent_id, sid)
    return (agent_id, sid, calls) if calls else None


async def _lost_across_restart(
    http: HttpStatusTarget, agent_id: str, sid: str, calls: list[dict]
) -> list[str]:
    """What the restart lost of the parked session: calls nothing answered that wait no more,
    while its status does not read their awaiting state."""
    view = await http.snapshot(agent_id, sid)
    if view.get("messages.code") != 200:
        return []  # not kept: the calibration pair tells whether the service keeps sessions
    gone = no_longer_waiting(calls, view)
    if not gone:
        return []
    status = await http.status(sid, agent_id)
    awaited = {WAITING[str(call.get("state"))] for call in gone} | {"running"}
    if status.status in awaited:
        return []
    names = ", ".join(f"{call.get('name')} ({call.get('state')})" for call in gone)
    return [
        f"session {sid}: its tool call {names} waited before it, nothing answered it, and after it the messages "
        f"show it waiting no more, while the status reads {status.describe()}"
    ]

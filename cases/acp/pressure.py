"""Under pressure: what status did shows in what later becomes of the session.

The twin cases (status.no-side-effects.twins-*) treat twin sessions alike except that status is
asked about one of each pair, put both under a pressure, and compare what became of them by
position, with the roles and the creation order swapped (the engine and why it cannot fail a
conforming agent: conformance/targets/acp/twins.py; the rounds: rounds.py). The eviction cases
(status.inactive.after-*-eviction) check the agent's own transitions: a session it evicted reads
inactive and stays inactive while status is asked about it.

The memory cases need the agent's memory cap (--memory-cap N) and the idle cases its idle delay
(--idle-evict-after S); the thorough profile looks for them when they are not given, and
otherwise the cases are not testable and say which option to pass.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import anyio
from conformance.cases.acp import spec
from conformance.cases.acp.turns import held_turn

from conformance.core import case_clock, revisions
from conformance.core.outcomes import MissingInput, NotApplicable, Violation
from conformance.core.registry import Level, case
from conformance.targets.acp import rounds
from conformance.targets.acp.target import AcpTarget
from conformance.targets.acp.twins import (
    Fate,
    Round,
    Seat,
    baseline_from_unasked,
    confirm,
    explain,
    judge,
    roles,
    uniform,
)

MOMENT = 0.5  # seconds: "a moment later", where a background reload would have landed
EVICTION_GRACE = 1.0  # seconds an agent over its memory cap may take to evict
# Multiples of the calibrated idle delay the neighbour check waits: past any sweep's lag.
NEIGHBOUR_WAIT = 3.0


def shown(rnd: Round) -> list[str]:
    return [f"{'asked' if s.asked else 'unasked'}: {s.fate.describe()}" for s in rnd.seats]


def blame(rounds_run: list[Round], baseline: Any, pressure: str, details: dict, extra: str = "") -> None:
    verdict = judge(rounds_run, baseline)
    details["judgement"] = verdict.why
    if verdict.blamed:
        first = verdict.blamed[0]
        again = f" ({extra})" if extra else ""
        raise Violation(
            f"twin sessions treated alike but for status calls about one met different fates {pressure}, the same "
            f"way with the roles and the creation order swapped{again}: {explain(rounds_run, verdict)}",
            expected=f"{first.aspect} {first.expected} (the fate of that position without status calls)",
            observed=[
                f"round {d.round + 1}, {'asked' if d.asked else 'unasked'} twin: {d.aspect} {d.observed}"
                for d in verdict.blamed
            ][:8],
        )


async def pair_rounds(
    acp: AcpTarget,
    details: dict,
    play: Callable[[AcpTarget, bool], Awaitable[Round]],
    pressure: str,
    calibrate: Callable[[Round], None] | None = None,
) -> None:
    """A round with the asked twin created first; where the twins' fates differ, more rounds, the
    layouts alternating, until two pairs of them lay the same blame or the difference is cleared
    (:func:`confirmed`). ``calibrate`` raises where the first round shows its probe cannot observe."""
    began = case_clock.now()
    first = await play(acp, True)
    took = case_clock.now() - began
    details["round_1"] = shown(first)
    if calibrate is not None:
        calibrate(first)
    if uniform(first):
        details["judgement"] = "every twin met the same fate"
        details["rounds"] = "1: every twin met the same fate, nothing to confirm"
        return
    await confirmed(acp, details, play, [first], pressure, TWIN_ROUNDS, took=took)


# Rounds a case plays at most once the twins' fates parted: enough for two confirming pairs after
# an unconfirmed one, or a divergence and CLEAR_ROUNDS clean rounds after it.
TWIN_ROUNDS = 8
# A further round is played only where the case's time left holds this many times the longest
# round so far: a round on a loaded machine or a slower agent runs longer than the last one did.
ROUND_ROOM = 1.5


def no_round_fits(longest: float | None) -> str | None:
    """Why a further round of ``longest`` seconds cannot be played in the running case's time, or
    None where it can (or the case has no budget, or no round was timed yet)."""
    budget = case_clock.current()
    if budget is None or longest is None:
        return None
    left = budget.left()
    if left >= ROUND_ROOM * longest:
        return None
    return (
        f"stopped: no further round fits in the case's time ({max(left, 0.0):.0f} s of its {budget.seconds:g} s "
        f"left, a round took up to {longest:.0f} s)"
    )


async def confirmed(
    acp: AcpTarget,
    details: dict,
    play: Callable[[AcpTarget, bool], Awaitable[Round]],
    first: Sequence[Round],
    pressure: str,
    budget: int,
    baseline: Sequence[Fate] | Mapping[int, Fate] | None = None,
    *,
    took: float | None = None,
) -> None:
    """Rounds after the ``first`` ones (layouts alternating from the asked twin first), whose twins'
    fates parted, until twins.confirm decides: a failure (two pairs of rounds blame status), a pass
    (no twin deviated from its position's fate in the first two rounds, or in CLEAR_ROUNDS rounds in
    a row after a deviation) or, once ``budget`` rounds are spent or no further round fits in the
    case's time, not testable (inconclusive: never a pass, and never a failure of an agent that may
    be conforming). ``baseline``: the positions' fates measured without status calls, when the case
    has them; ``took``: the seconds the first round took, when the case timed it. The report's
    details say how many rounds ran and why."""
    played = list(first)
    longest = took
    while True:
        decision = confirm(played, budget, baseline, stopped=no_round_fits(longest))
        if decision.decision != "more":
            break
        began = case_clock.now()
        played.append(await play(acp, len(played) % 2 == 0))
        longest = max(longest or 0.0, case_clock.now() - began)
        details[f"round_{len(played)}"] = shown(played[-1])
    details["rounds"] = f"{len(played)}: {decision.why}"
    if decision.decision == "blamed":
        start = decision.pairs[0]
        pair = played[start : start + 2]
        fates = baseline_from_unasked(pair) if baseline is None else baseline
        blame(pair, fates, pressure, details, extra=decision.why)
    if decision.decision == "inconclusive":
        raise MissingInput(
            f"inconclusive: the twins' fates parted {pressure} and neither came again the same way nor stopped "
            f"parting within {len(played)} rounds ({decision.why}); run the case again (-k) or with a longer --hold"
        )
    details["judgement"] = decision.why


@case("status.no-side-effects.twins-use", level=Level.MUST, spec=spec.NO_SIDE_EFFECTS)
async def twins_under_use(acp: AcpTarget, details: dict) -> None:
    """Twins prompted alike, status asked about one (one call at a time, then a burst): their next
    prompts are accepted or refused alike (a request allowance status spends shows here)."""

    def prompts_observe(first: Round) -> None:
        # Calibration: the twins' first prompts come before any status call. If neither was served,
        # a refused prompt later shows nothing of what status did.
        if not any(seat.fate.prompts[:1] == ("ok",) for seat in first.seats):
            raise MissingInput(
                f"a twin's first prompt, before any status call, failed too ({first.seats[0].fate.prompts[0]}), "
                "so later prompts cannot show what status did"
            )

    await pair_rounds(
        acp, details, rounds.use_round, "when both were prompted alike afterwards", prompts_observe
    )


def pairs_alike(rnd: Round) -> bool:
    """Each pair's twins met the same fate (the pairs may differ: one is inactive, one live)."""
    seats = sorted(rnd.seats, key=lambda s: s.position)
    return all(seats[i].fate == seats[i + 1].fate for i in range(0, len(seats) - 1, 2))


@case("status.no-side-effects.twins-later", level=Level.MUST, spec=spec.NO_SIDE_EFFECTS, slow=True)
async def twins_later(acp: AcpTarget, details: dict) -> None:
    """Twins treated alike (an inactive pair and a live pair), status asked about one of each (one
    call at a time, then a burst), then all left alone for --hold seconds: their list entries,
    the notifications about them, their status and listing agree pair by pair (a load, a save or
    a replay status sets off in the background a moment later shows only here)."""
    hold = acp.harness.config.hold_seconds
    began = case_clock.now()
    first = await rounds.later_round(acp, True)
    took = case_clock.now() - began
    details["round_1"] = shown(first)
    if pairs_alike(first):
        details["judgement"] = f"each pair's twins met the same fate over {hold:g} s"
        details["rounds"] = "1: each pair's twins met the same fate, nothing to confirm"
        return
    await confirmed(
        acp,
        details,
        rounds.later_round,
        [first],
        f"over the {hold:g} s after the status calls (--hold)",
        TWIN_ROUNDS,
        took=took,
    )


@case("status.no-side-effects.twins-restart", level=Level.MUST, spec=spec.NO_SIDE_EFFECTS, slow=True)
async def twins_across_a_restart(acp: AcpTarget, details: dict) -> None:
    """Twins created alike, status asked about one, the agent restarted: both come back alike
    (status, listing, resume, the history a load replays). And two never-created ids, status asked
    about one before the first round's restart: after it both are still unknown alike (status,
    listing, resume)."""
    unknown = rounds.UnknownTwins(acp.unknown_id(), acp.unknown_id())

    async def play(acp: AcpTarget, asked_first: bool) -> Round:  # the unknown ids in the first round only
        return await rounds.restart_round(acp, asked_first, None if unknown.fates else unknown)

    await pair_rounds(acp, details, play, "across a restart of the agent")
    _judge_unknown_twins(details, unknown)


def _judge_unknown_twins(details: dict, unknown: rounds.UnknownTwins) -> None:
    """An agent that records what status was asked about (an index of lookups, a cache written to
    disk) may bring it back as a session when it starts again: the asked id and its never-asked
    twin must meet the same fate."""
    asked, unasked = unknown.fates[unknown.asked], unknown.fates[unknown.unasked]
    details["unknown_ids_after_restart"] = {"asked": asked.describe(), "never asked": unasked.describe()}
    if asked != unasked:
        raise Violation(
            f"a never-created id status was asked about came back from a restart of the agent as "
            f"{asked.describe()}, and its twin, never asked about, as {unasked.describe()}: "
            "status recorded the id it was asked about",
            expected=unasked.describe(),
            observed=asked.describe(),
        )


def not_active_violation(what: str, rule: str | None = None) -> Violation:
    return Violation(
        what,
        expected=f"{revisions.word('inactive')!r} (or -32002) for a session the agent does not hold in memory",
        observed=revisions.word("active"),
        rule=rule,
    )


@case(
    "status.no-side-effects.twins-memory",
    level=Level.MUST,
    spec=spec.NO_SIDE_EFFECTS,
    rules=("evicted-not-active",),
)
async def twins_under_memory_pressure(acp: AcpTarget, details: dict) -> None:
    """Twins in memory, status asked about half of them, then more sessions than the agent holds:
    which twins it evicts follows their places, never the status calls (a status that counts as use
    makes a least-recently-used agent evict the others)."""
    cap, declared = await rounds.memory_cap(acp)
    details["memory_cap"] = cap if declared else f"{cap} ({acp.policy.cap_discovery})"
    pairs = min(rounds.PAIRS, cap // 2)
    if pairs < 2:
        await single_pair_memory_rounds(acp, cap, declared, details)
        return
    calibration = [await rounds.memory_round(acp, cap, roles(pairs, True), asking=False) for _ in range(2)]
    details["calibration"] = [shown(rnd) for rnd, _ in calibration]
    baseline = [s.fate for s in await memory_baseline(acp, cap, declared, calibration)]
    began = case_clock.now()
    first, _ = await rounds.memory_round(acp, cap, roles(pairs, True), asking=True)
    took = case_clock.now() - began
    details["round_1"] = shown(first)
    if not judge([first], baseline).deviations:
        details["judgement"] = "every twin met the fate of its position, asked about or not"
        return

    async def play(acp: AcpTarget, asked_first: bool) -> Round:
        return (await rounds.memory_round(acp, cap, roles(pairs, asked_first), asking=True))[0]

    await confirmed(
        acp, details, play, [first], "when the agent ran out of memory", TWIN_ROUNDS, baseline, took=took
    )


async def single_pair_memory_rounds(acp: AcpTarget, cap: int, declared: bool, details: dict) -> None:
    """A cap under four holds one pair of twins at a time. Its asked twin created second is the most
    recently used one already, so the roles are swapped in a second layout instead: the first twin
    is used once more right after the twins are created (rounds.use_again), which makes the twin
    created second the least recently used one. Each layout has its own calibration, and the
    judgement is the pairs' (two rounds, the roles swapped in the order of use)."""
    layouts = {}
    for again in (False, True):
        calibration = [
            await rounds.memory_round(acp, cap, roles(1, True), asking=False, first_used_again=again)
            for _ in range(2)
        ]
        details["calibration" if not again else "calibration_swapped"] = [
            shown(rnd) for rnd, _ in calibration
        ]
        layouts[again] = await memory_baseline(acp, cap, declared, calibration)
    baseline = {s.position: s.fate for base in layouts.values() for s in base}
    began = case_clock.now()
    first, _ = await rounds.memory_round(acp, cap, roles(1, True), asking=True)
    details["round_1"] = shown(first)
    second, _ = await rounds.memory_round(acp, cap, roles(1, False), asking=True, first_used_again=True)
    took = (case_clock.now() - began) / 2
    details["round_2"] = shown(second)
    if not judge([first, second], baseline).deviations:
        details["judgement"] = "every twin met the fate of its position, asked about or not"
        return

    async def play(acp: AcpTarget, asked_first: bool) -> Round:
        layout = roles(1, asked_first)
        return (await rounds.memory_round(acp, cap, layout, asking=True, first_used_again=not asked_first))[0]

    await confirmed(
        acp,
        details,
        play,
        [first, second],
        "when the agent ran out of memory",
        TWIN_ROUNDS,
        baseline,
        took=took,
    )


async def memory_baseline(
    acp: AcpTarget, cap: int, declared: bool, calibration: list[tuple[Round, list[str]]]
) -> list[Seat]:
    """The seats of the calibration rounds nobody asked status about, when they agree (the
    position's fate without status calls); not testable when they do not, not applicable when
    the agent evicted no twin, and a failure when more sessions than the declared cap read active."""
    seats = [list(rnd.seats) for rnd, _ in calibration]
    if any([s.fate for s in other] != [s.fate for s in seats[0]] for other in seats[1:]):
        raise MissingInput(
            "two rounds nobody asked status about ended with different twins evicted: the agent's eviction order "
            "is not deterministic, so a difference cannot be laid at status's door"
        )
    if all(s.fate.status == "active" for s in seats[0]):
        made = calibration[-1][1]
        held = [rounds.answer(r) for r in await rounds.statuses(acp, made)].count("active")
        if declared and held > cap:
            raise not_active_violation(
                f"{len(made)} sessions created one after the other under --memory-cap {cap}, and status reports "
                f"{held} of them active (in memory): either the cap is wrong or status reads evicted sessions "
                "as active",
                rule="evicted-not-active",
            )
        raise NotApplicable(
            f"the agent's eviction spared every twin ({len(made)} sessions created past them)"
        )
    return seats[0]


async def evicting_delay(acp: AcpTarget, details: dict, rule: str | None) -> float:
    """The seconds after which an untouched session reads inactive: calibrated once per run."""
    delay, declared = await rounds.idle_delay(acp)
    details["idle_delay"] = delay if declared else f"{delay:g} ({acp.policy.idle_discovery})"
    if acp.policy.calibrated_idle is None:
        found = await rounds.calibrate_idle(acp, [delay * m for m in rounds.IDLE_PROBES])
        if found is None:
            raise left_alone_active(delay, rule)
        acp.policy.calibrated_idle = found[0]
    return acp.policy.calibrated_idle


def left_alone_active(delay: float, rule: str | None) -> Violation:
    longest = delay * rounds.IDLE_PROBES[-1]
    return not_active_violation(
        f"sessions left alone (no request about them until one status call each) still read active {longest:g} s "
        f"after they were created, though the agent evicts unused sessions after {delay:g} s (--idle-evict-after): "
        "either that delay is wrong or status reads an evicted session back into memory",
        rule=rule,
    )


@case(
    "status.no-side-effects.twins-idle",
    level=Level.MUST,
    spec=spec.NO_SIDE_EFFECTS,
    rules=("evicted-not-active", "neighbours"),
)
async def twins_past_the_idle_delay(acp: AcpTarget, details: dict) -> None:
    """Twins, status asked about half of them again and again while the others are left alone,
    until past the agent's idle delay: all leave memory alike (a status that resets an idle timer
    keeps the asked ones; one that keeps the whole agent awake keeps their siblings too)."""
    delay = await evicting_delay(acp, details, "evicted-not-active")
    details["evicted_after"] = delay
    began = case_clock.now()
    first = await rounds.idle_round(acp, delay, roles(rounds.PAIRS, True))
    took = case_clock.now() - began
    details["round_1"] = shown(first)
    await neighbours_kept(acp, first, delay, details)
    if uniform(first):
        details["judgement"] = "every twin met the same fate"
        return

    async def play(acp: AcpTarget, asked_first: bool) -> Round:
        return await rounds.idle_round(acp, delay, roles(rounds.PAIRS, asked_first))

    await confirmed(acp, details, play, [first], "past the idle delay", TWIN_ROUNDS, took=took)


async def neighbours_kept(acp: AcpTarget, first: Round, delay: float, details: dict) -> None:
    """Twins nobody asked about are in memory past the delay after which an untouched session read
    inactive. Late eviction, or status about their siblings keeps them: the same round again, three
    times as long, with status calls and then without (the same moment for both), tells."""
    if not all(s.fate.status == "active" for s in first.seats if not s.asked):
        return
    layout = roles(rounds.PAIRS, True)
    asked = await rounds.idle_round(acp, delay, layout, wait=NEIGHBOUR_WAIT)
    alone = await rounds.idle_round(acp, delay, layout, asking=False, wait=NEIGHBOUR_WAIT)
    details["neighbours"] = {"with_status_calls": shown(asked), "without": shown(alone)}
    kept = [s for s in asked.seats if not s.asked and s.fate.status == "active"]
    if len(kept) == len(layout) // 2 and all(s.fate.status != "active" for s in alone.seats):
        raise Violation(
            f"sessions nobody asked about stayed in memory {NEIGHBOUR_WAIT * delay:g} s after they were created "
            "while status was asked about their siblings again and again, and left memory in the same time "
            "when nobody was asked about: status keeps the agent's other sessions in memory",
            expected=f"unasked twins: {alone.seats[1].fate.describe()} (as without status calls)",
            observed=f"unasked twins: {kept[0].fate.describe()}",
            rule="neighbours",
        )


@case(
    "status.inactive.after-memory-eviction",
    level=Level.MUST,
    spec=spec.INACTIVE,
    rules=("stays-inactive", "lookups-evict-none"),
)
async def inactive_after_memory_eviction(acp: AcpTarget, details: dict) -> None:
    """More sessions than the agent holds: those it evicted read inactive, and stay inactive while
    status is asked about them (a burst, then again and again for --hold), and a moment later.
    Rule lookups-evict-none, first: status calls about ids never created, and about sessions it
    evicted, sent together, leave the sessions the agent holds in memory."""
    cap, declared = await rounds.memory_cap(acp)
    await lookups_evict_none(acp, cap, details)
    sids = [await acp.new_session() for _ in range(cap + 2)]
    answers = [rounds.answer(r) for r in await rounds.statuses(acp, sids)]
    with anyio.move_on_after(EVICTION_GRACE):  # an agent may evict a moment after the new session
        while declared and answers.count("active") > cap:
            await anyio.sleep(0.1)
            answers = [rounds.answer(r) for r in await rounds.statuses(acp, sids)]
    details["answers"] = answers
    if answers.count("active") > cap:
        if declared:
            raise not_active_violation(
                f"{len(sids)} sessions created one after the other under --memory-cap {cap}, and {answers.count('active')} "
                f"of them still read active (in memory) {EVICTION_GRACE:g} s later"
            )
        raise MissingInput(f"no session read inactive under the discovered cap ({acp.policy.cap_discovery})")
    evicted = [sid for sid, got in zip(sids, answers, strict=True) if got != "active"]
    # cap + 2 sessions, at most cap of them active: two at least were evicted
    await watch(acp, evicted[0], evicted[1], details, "the agent evicted for memory", twin_asked=True)


async def lookups_evict_none(acp: AcpTarget, cap: int, details: dict) -> None:
    """Status calls about sessions not in memory leave the sessions the agent holds there: first
    about twice ``cap`` never-created ids, then about sessions it evicted (status of a session on
    disk may read its record; it must not make room for it). Each round reads the held sessions
    newest first and one at a time (a status call about a session in memory is a plain lookup),
    sends the calls together, then reads the held sessions again: nothing but those calls came
    between the two reads, so a held session that left memory left it because of them."""
    sids = [await acp.new_session() for _ in range(cap)]
    held = await _held(acp, sids)
    if held:
        lookups = [acp.unknown_id() for _ in range(2 * cap)]
        details["lookups"] = await _lookups_keep(acp, held, lookups, "never-created ids")
    for _ in range(cap):  # newer sessions, which push the first ones out of memory
        await acp.new_session()
    evicted = [sid for sid in sids if rounds.answer(await acp.status(sid)) == "inactive"]
    # Memory filled again after those reads (one that made room for an evicted session may have
    # left a seat free): each held session in it, then the calls about the evicted ones.
    fill = [await acp.new_session() for _ in range(cap)]
    held = await _held(acp, fill)
    if held and evicted:
        details["evicted_lookups"] = await _lookups_keep(acp, held, evicted * 2, "sessions it had evicted")


async def _held(acp: AcpTarget, sids: list[str]) -> list[str]:
    """Those of ``sids`` that read active, each read once, newest first."""
    return [sid for sid in reversed(sids) if rounds.answer(await acp.status(sid)) == "active"]


async def _lookups_keep(acp: AcpTarget, held: list[str], lookups: list[str], about: str) -> dict[str, int]:
    """Status calls about ``lookups``, sent together, then the ``held`` sessions read again: a
    Violation (rule lookups-evict-none) where one of them left memory."""
    await rounds.statuses(acp, lookups)
    again = [rounds.answer(r) for r in await rounds.statuses(acp, held)]
    dropped = [f"{sid}: {got}" for sid, got in zip(held, again, strict=True) if got != "active"]
    if dropped:
        raise Violation(
            f"{len(dropped)} of the {len(held)} sessions the agent held in memory left it across {len(lookups)} "
            f"session/status calls about {about}, sent together, with nothing else between the two reads: status "
            "changed sessions it was not asked about",
            expected=f"all {len(held)} still {revisions.word('active')!r}",
            observed=dropped[:8],
            rule="lookups-evict-none",
        )
    return {"calls": len(lookups), "held": len(held), "left_memory": len(dropped)}


async def watch(acp: AcpTarget, sid: str, twin: str, details: dict, why: str, *, twin_asked: bool) -> None:
    """Status about an evicted session again and again for --hold seconds, then it and its twin (a
    session evicted alike, asked about once or never) a moment later: the watched one never reads
    active; an asked twin neither."""
    hold = acp.harness.config.hold_seconds
    seen = await rounds.watch_inactive(acp, sid, hold)
    details["watched"] = {"seconds": hold, "calls": len(seen), "last": seen[-1] if seen else None}
    if seen and seen[-1][1] == "active":
        at, _ = seen[-1]
        raise not_active_violation(
            f"a session {why} read {revisions.word('active')!r} {at:g} s into a watch of status calls about it, "
            f"after {len(seen) - 1} calls that read it not active: status brought it back into memory",
            rule="stays-inactive",
        )
    await anyio.sleep(max(MOMENT, 5 * acp.settle))
    watched, other = (rounds.answer(r) for r in await rounds.statuses(acp, [sid, twin]))
    details["a_moment_later"] = {"watched": watched, "twin": other}
    twin_was = "asked about once" if twin_asked else "never asked about"
    if watched == "active":
        raise not_active_violation(
            f"a session {why} read {revisions.word('active')!r} a moment after {len(seen)} status calls about it "
            f"had read it not active (status reloads it in the background); its twin, {twin_was}, reads {other!r}",
            rule="stays-inactive",
        )
    if twin_asked and other == "active":
        raise not_active_violation(
            f"a session {why} read {revisions.word('active')!r} a moment after one status call about it had read "
            f"it not active (status reloads it in the background); its watched twin reads {watched!r}",
            rule="stays-inactive",
        )


@case(
    "status.inactive.after-idle-eviction",
    level=Level.MUST,
    spec=spec.INACTIVE,
    rules=("stays-inactive", "turn-in-memory"),
)
async def inactive_after_idle_eviction(acp: AcpTarget, details: dict) -> None:
    """Sessions left alone past the agent's idle delay read inactive, and stay inactive while status
    is asked about them (a burst, then again and again for --hold), and a moment later. Rule
    turn-in-memory: a session whose turn waits on the user's permission all the while, since before
    those sessions were created, is in memory when they first read inactive: it is not inactive."""
    delay, declared = await rounds.idle_delay(acp)
    details["idle_delay"] = delay if declared else f"{delay:g} ({acp.policy.idle_discovery})"
    found = await calibrate_beside_a_turn(acp, [delay * m for m in rounds.IDLE_PROBES], details)
    if found is None:
        raise left_alone_active(delay, None)
    after, evicted, untouched = found
    details["evicted_after"] = after
    if acp.policy.calibrated_idle is None:
        acp.policy.calibrated_idle = after
    await watch(acp, evicted, untouched, details, "the agent evicted after its idle delay", twin_asked=False)


async def calibrate_beside_a_turn(
    acp: AcpTarget, times: list[float], details: dict
) -> tuple[float, str, str] | None:
    """The idle calibration (rounds.calibrate_idle) run while a turn on another session waits on
    the user's permission, and that session's status asked once a session left alone has read
    inactive (rule turn-in-memory). Its turn started before those sessions were created, so it has
    gone on longer than they were left alone; the turn is judged only if it was still in progress
    when status answered (a real agent may give up waiting on the user)."""
    busy = await acp.new_session()
    mark = len(acp.peer.notifications)
    turn: dict[str, Any] = {}
    started = anyio.current_time()

    async def calibrate() -> tuple[tuple[float, str, str] | None, tuple[str, float, bool] | None]:
        found = await rounds.calibrate_idle(acp, times)
        if found is None:
            return None, None
        answer = rounds.answer(await acp.status(busy))
        ended = "ended" in turn or acp.state_reached(busy, "idle", since=mark, ending=True) is not None
        return found, (answer, round(anyio.current_time() - started, 2), ended)

    stop, during = await held_turn(acp, busy, calibrate, got=turn, longer=times[-1])
    if stop is None:  # no permission asked: no turn to hold beside the calibration
        details["unjudged"] = {"turn-in-memory": "the agent asked no permission for a '[permission]' prompt"}
        return await rounds.calibrate_idle(acp, times)
    found, probe = during if during is not None else (None, None)
    if found is None or probe is None:
        return found
    answer, seconds, ended = probe
    details["turn_in_progress"] = {"status": answer, "seconds_into_turn": seconds, "ended_before": ended}
    if ended:
        details["unjudged"] = {
            "turn-in-memory": f"the turn ended before sessions left alone read inactive ({found[0]:g} s)"
        }
    elif answer != "active":
        raise Violation(
            f"a session whose turn had waited on the user's permission for {seconds:g} s, and still did, read "
            f"{answer!r} when sessions left alone beside it, created after its prompt, had just read not active "
            f"({found[0]:g} s after they were created): its turn keeps it in memory, and a session in memory is not "
            "inactive",
            expected=revisions.word("active"),
            observed=answer,
            rule="turn-in-memory",
        )
    return found

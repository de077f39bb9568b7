"""The twin engine's judgement (conformance/targets/acp/twins.py), on fates as rounds report them:
eviction orders that follow the client's doing never look like a side effect; status's doing does,
only when it comes again with the roles and the creation order swapped."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest
from conformance.cases.acp import pressure

from conformance.core import case_clock
from conformance.core.config import UsageError
from conformance.core.outcomes import MissingInput
from conformance.targets.acp.options import AcpOptions
from conformance.targets.acp.twins import (
    CLEAR_ROUNDS,
    Fate,
    Round,
    Seat,
    baseline_from_calibration,
    baseline_from_unasked,
    confirm,
    explain,
    judge,
    roles,
    uniform,
)

IN, OUT = Fate("active"), Fate("inactive")


@pytest.fixture(autouse=True)
def rfd_words() -> Iterator[None]:
    """Fates speak the checked revision's words: these judgements are the RFD's."""
    from conformance.core import revisions
    from tests.conftest import revision_kept

    with revision_kept():
        revisions.use("rfd-2026-10-26")
        yield


def round_of(layout: tuple[bool, ...], fates: list[Fate]) -> Round:
    return Round(
        tuple(
            Seat(n, asked, fate, f"s{n}") for n, (asked, fate) in enumerate(zip(layout, fates, strict=True))
        )
    )


FIRST, SECOND = roles(2, True), roles(2, False)


def test_roles_alternate_which_twin_of_a_pair_is_asked_and_swap_between_layouts() -> None:
    assert FIRST == (True, False, False, True)
    assert SECOND == (False, True, True, False)
    assert roles(1, True) == (True, False)
    assert roles(4, False) == (False, True, True, False, False, True, True, False)


def test_least_recently_used_eviction_is_the_fate_of_positions() -> None:
    """Memory cap, status not counted: the oldest twins go, whoever was asked about."""
    lru = [OUT, OUT, IN, IN]
    baseline = baseline_from_calibration([lru, lru])
    assert baseline is not None
    assert baseline == lru
    verdict = judge([round_of(FIRST, lru), round_of(SECOND, lru)], baseline)
    assert verdict.blamed == () and verdict.deviations == ()


def test_newest_first_eviction_is_the_fate_of_positions_too() -> None:
    mru = [IN, IN, OUT, OUT]
    assert judge([round_of(FIRST, mru), round_of(SECOND, mru)], mru).blamed == ()


def test_status_counted_as_use_is_blamed() -> None:
    """The asked twins are refreshed, so the unasked ones are evicted instead: in both layouts."""
    baseline = [OUT, OUT, IN, IN]
    first = round_of(FIRST, [IN, OUT, OUT, IN])  # asked at 0 and 3 kept, unasked at 1 and 2 evicted
    second = round_of(SECOND, [OUT, IN, IN, OUT])
    verdict = judge([first, second], baseline)
    assert verdict.blamed
    assert {(d.asked, d.observed) for d in verdict.blamed} == {(True, "active"), (False, "inactive")}
    text = explain([first, second], verdict)
    assert "round 1" in text and "round 2" in text
    assert "asked twin status active" in text and "its unasked twin status inactive" in text


def test_a_difference_in_one_layout_only_is_not_blamed() -> None:
    baseline = [OUT, OUT, IN, IN]
    first = round_of(FIRST, [IN, OUT, OUT, IN])
    second = round_of(SECOND, baseline)
    verdict = judge([first, second], baseline)
    assert verdict.blamed == () and verdict.deviations
    assert "did not come again" in verdict.why
    assert judge([first], baseline).blamed == ()  # one round proves nothing


def test_a_change_asked_and_unasked_twins_both_meet_is_the_agents_own() -> None:
    """A random policy whose two calibration rounds happened to agree: its deviations fall on asked
    and unasked twins alike."""
    baseline = [OUT, OUT, IN, IN]
    first = round_of(FIRST, [IN, IN, OUT, OUT])  # asked at 0 kept, unasked at 1 kept too
    second = round_of(SECOND, [IN, OUT, OUT, IN])
    verdict = judge([first, second], baseline)
    assert verdict.blamed == ()
    assert "alike" in verdict.why


def test_calibration_rounds_that_disagree_give_no_baseline() -> None:
    assert baseline_from_calibration([[OUT, IN, OUT, IN], [IN, OUT, OUT, IN]]) is None


def test_a_spent_allowance_is_blamed_by_position_across_rounds() -> None:
    """Two twins prompted alike after status: the asked one is refused, in both layouts."""
    served, refused = Fate("active", prompts=("ok", "ok")), Fate("active", prompts=("error -32010",) * 2)
    first = round_of(roles(1, True), [refused, served])
    second = round_of(roles(1, False), [served, refused])
    assert not uniform(first)
    rounds = [first, second]
    assert baseline_from_unasked(rounds) == {0: served, 1: served}
    verdict = judge(rounds, baseline_from_unasked(rounds))
    assert [d.aspect for d in verdict.blamed] == ["prompts", "prompts"]


def test_a_limit_that_follows_the_order_of_prompts_is_not_blamed() -> None:
    """An agent-wide limit refuses whichever twin is prompted last: the same position both times."""
    early, late = Fate("active", prompts=("ok", "ok")), Fate("active", prompts=("ok", "error -32010"))
    rounds = [round_of(roles(1, True), [early, late]), round_of(roles(1, False), [early, late])]
    verdict = judge(rounds, baseline_from_unasked(rounds))
    assert verdict.blamed == () and verdict.deviations == ()


def test_a_restart_that_keeps_only_the_asked_twin_is_blamed() -> None:
    kept = Fate("inactive", listed="yes", reopen="ok")
    lost = Fate("unknown", listed="no", reopen="error -32002")
    rounds = [round_of(roles(1, True), [kept, lost]), round_of(roles(1, False), [lost, kept])]
    verdict = judge(rounds, baseline_from_unasked(rounds))
    assert {d.aspect for d in verdict.blamed} == {"status", "listed", "reopen"}


def test_uniform_rounds_and_descriptions() -> None:
    assert uniform(round_of(FIRST, [OUT] * 4))
    assert not uniform(round_of(FIRST, [OUT, OUT, OUT, IN]))
    fate = Fate("active", state="idle", prompts=("ok", "error -32010"), listed="yes")
    assert fate.describe() == "status active, state idle, prompts ok / error -32010, listed yes"


def test_a_fate_speaks_the_checked_revisions_words() -> None:
    from conformance.core import revisions
    from tests.conftest import revision_kept

    with revision_kept():
        revisions.use("acp-unstable-2026-11")
        assert Fate("active").describe() == "status open"
        assert Fate("inactive", listed="no").describe() == "status saved, listed no"


def test_the_policy_options_are_checked_once() -> None:

    assert AcpOptions.from_values({"memory_cap": 8, "idle_evict_after": 2.5}) == AcpOptions(
        memory_cap=8, idle_evict_after=2.5
    )
    assert AcpOptions.from_values({}) == AcpOptions()
    given = AcpOptions.from_values({"agent_protocol": 2, "auth_method": "api-key"})
    assert (given.protocol, given.auth_method) == (2, "api-key")
    with pytest.raises(UsageError, match="--protocol 3 is not 1 or 2"):
        AcpOptions.from_values({"agent_protocol": 3})
    with pytest.raises(UsageError, match="--memory-cap 0 is not a number of sessions"):
        AcpOptions.from_values({"memory_cap": 0})
    with pytest.raises(UsageError, match="--idle-evict-after 0 must be a positive number"):
        AcpOptions.from_values({"idle_evict_after": 0.0})


# -- confirmation: a divergence runs more rounds before any verdict ------------------------------

TOUCHED, UNTOUCHED = Fate("active", touched="updatedAt"), Fate("active", touched="none")


def blamed_round(asked_first: bool) -> Round:
    """One pair of twins: the asked one touched over the hold, its unasked twin not."""
    layout = roles(1, asked_first)
    return round_of(layout, [TOUCHED if asked else UNTOUCHED for asked in layout])


def alike_round(asked_first: bool) -> Round:
    return round_of(roles(1, asked_first), [UNTOUCHED, UNTOUCHED])


def test_a_difference_that_comes_again_in_two_pairs_of_rounds_is_blamed() -> None:
    played = [blamed_round(True), blamed_round(False)]
    assert confirm(played, 8).decision == "more"  # one pair proves nothing
    played += [blamed_round(True), blamed_round(False)]
    decision = confirm(played, 8)
    assert decision.decision == "blamed" and decision.pairs == (0, 2)
    assert "4 rounds" in decision.why and "rounds 1-2 and 3-4" in decision.why


def test_fates_decided_by_position_clear_after_the_first_pair() -> None:
    """Newest first under a memory cap: the twins of a round meet different fates, each position
    the same one whoever was asked; nothing to confirm."""
    kept, lost = Fate("active"), Fate("inactive")
    played = [round_of(roles(1, True), [kept, lost])]
    assert confirm(played, 8).decision == "more"
    played.append(round_of(roles(1, False), [kept, lost]))
    assert confirm(played, 8).decision == "clear"


def test_a_difference_seen_once_is_cleared_only_by_clean_rounds_in_a_row() -> None:
    played = [blamed_round(True)] + [alike_round(n % 2 == 0) for n in range(1, CLEAR_ROUNDS)]
    assert confirm(played, 8).decision == "more"
    played.append(alike_round(CLEAR_ROUNDS % 2 == 0))
    decision = confirm(played, 8)
    assert decision.decision == "clear"
    assert "94%" in decision.why and f"the last {CLEAR_ROUNDS} rounds" in decision.why
    assert "deviated from their positions' fates in round(s) 1;" in decision.why


def test_a_pair_that_blamed_once_is_never_cleared_and_ends_inconclusive() -> None:
    """A bug that shows under timing must not be passed by the rounds it missed: without a second
    blaming pair it is not testable (inconclusive), never a pass nor a failure."""
    played = [blamed_round(True), blamed_round(False)] + [alike_round(n % 2 == 0) for n in range(2, 8)]
    decision = confirm(played, 8)
    assert decision.decision == "inconclusive"
    assert "one pair of rounds (from round 1) blamed status" in decision.why
    assert confirm(played[:7], 8).decision == "more"


def test_a_difference_that_keeps_changing_sides_ends_inconclusive_at_the_budget() -> None:
    """Fates that part at random (an agent's own variation) never line up twice, and never stop."""
    flip = [blamed_round(True), alike_round(False), alike_round(True), blamed_round(True)] * 2
    decision = confirm(flip, 8)
    assert decision.decision == "inconclusive" and "the budget: 8 rounds" in decision.why


def test_a_calibrated_baseline_judges_every_round_and_a_lone_difference_plays_on() -> None:
    """The memory twins: each position's fate from rounds nobody asked status about. A difference in
    one layout only is no pass (the two-round judgement passed it): more rounds, then blame only when
    a second pair lays it again."""
    lru = [OUT, OUT, IN, IN]
    refreshed = {True: [IN, OUT, OUT, IN], False: [OUT, IN, IN, OUT]}  # status counted as use
    played = [round_of(FIRST, refreshed[True]), round_of(SECOND, lru)]
    assert judge(played, lru).blamed == ()
    assert confirm(played, 8, lru).decision == "more"
    played += [round_of(FIRST, refreshed[True]), round_of(SECOND, refreshed[False])]
    assert confirm(played, 8, lru).decision == "more"  # one blaming pair (rounds 3-4)
    played += [round_of(FIRST, refreshed[True]), round_of(SECOND, refreshed[False])]
    decision = confirm(played, 8, lru)
    assert decision.decision == "blamed" and decision.pairs == (2, 4)
    assert confirm([round_of(FIRST, lru), round_of(SECOND, lru)], 8, lru).decision == "clear"


# -- confirmation within the case's time: a round that does not fit is not played -----------------


def test_a_search_stopped_by_the_case_s_time_is_inconclusive_unless_already_decided() -> None:
    stopped = "stopped: no further round fits in the case's time"
    assert confirm([blamed_round(True)], 8, stopped=stopped).decision == "inconclusive"
    played = [blamed_round(True), blamed_round(False)]
    decision = confirm(played, 8, stopped=stopped)
    assert (decision.decision, decision.why.endswith(stopped)) == ("inconclusive", True)
    kept, lost = Fate("active"), Fate("inactive")
    cleared = [round_of(roles(1, True), [kept, lost]), round_of(roles(1, False), [kept, lost])]
    assert confirm(cleared, 8, stopped=stopped).decision == "clear"  # decided: time changes nothing
    assert confirm(played * 2, 8, stopped=stopped).decision == "blamed"


class FakeClock:
    def __init__(self, start: float) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t


def twins_idle_with_rounds_of(monkeypatch: pytest.MonkeyPatch, clock: FakeClock, delay: float) -> list[bool]:
    """status.no-side-effects.twins-idle on scripted rounds that take 1.2 times ``delay`` on the fake
    ``clock`` (its calibration 100 s), each twin asked about kept in memory (status reset its idle
    timer) in the first round only: a difference that never comes again. The layouts the rounds
    were played in."""
    played: list[bool] = []

    async def delay_of(acp: object, details: dict, rule: str | None) -> float:
        clock.t += 100.0  # the calibration of the delay
        return delay

    async def idle_round(acp: object, delay: float, layout: tuple[bool, ...], **_: object) -> Round:
        clock.t += 1.2 * delay
        played.append(layout[0])
        if len(played) == 1:
            return round_of(layout, [IN if asked else OUT for asked in layout])
        return round_of(layout, [OUT] * len(layout))

    async def no_neighbours(*_: object) -> None:
        return None

    monkeypatch.setattr(pressure, "evicting_delay", delay_of)
    monkeypatch.setattr(pressure.rounds, "idle_round", idle_round)
    monkeypatch.setattr(pressure, "neighbours_kept", no_neighbours)
    details: dict = {}
    with case_clock.case_budget(600.0, clock=clock):
        anyio.run(pressure.twins_past_the_idle_delay, object(), details)
    return played


def test_twins_idle_with_a_delay_of_minutes_plays_only_the_rounds_the_case_s_time_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An idle delay of 150 s: a round takes 180 s, the calibration took 100 s. Eight rounds would
    end the case as an error at its 600 s; the rounds stop when the next one no longer fits, and the
    case is inconclusive (not testable), never a pass, saying how many rounds ran and why."""
    clock = FakeClock(start=0.0)
    with pytest.raises(MissingInput) as raised:
        twins_idle_with_rounds_of(monkeypatch, clock, delay=150.0)
    assert clock.t == 460.0  # the calibration and two rounds: a third would end past 600 s
    message = raised.value.message
    assert message.startswith("inconclusive: the twins' fates parted past the idle delay")
    assert "within 2 rounds" in message
    assert (
        "no further round fits in the case's time (140 s of its 600 s left, a round took up to 180 s)"
        in message
    )


def test_twins_idle_with_a_short_delay_still_plays_until_the_rounds_decide(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    played = twins_idle_with_rounds_of(monkeypatch, FakeClock(start=0.0), delay=2.0)
    assert played == [True, False, True, False, True]  # a lone difference, then CLEAR_ROUNDS clean rounds

"""The twin engine's judgement (conformance/targets/acp/twins.py), on fates as rounds report them:
eviction orders that follow the client's doing never look like a side effect; status's doing does,
only when it comes again with the roles and the creation order swapped."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.core.config import UsageError
from conformance.targets.acp.options import AcpOptions
from conformance.targets.acp.twins import (
    Fate,
    Round,
    Seat,
    baseline_from_calibration,
    baseline_from_unasked,
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

"""A generated input that fails once and not when Hypothesis replays it (a bug that depends on
timing, or on what ran before) is still a finding: the fuzz runner reports what it saw, saying
it did not fail again, instead of letting Hypothesis's Flaky error reach the case as a harness
error. Judged on a check that fails exactly once, with no agent."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import anyio
import anyio.to_thread
import pytest
from conformance.cases.acp import sequences as sequence_case
from hypothesis import strategies as st

from conformance.core.fuzzing import FuzzFailure, run_fuzz
from conformance.core.outcomes import MissingInput, NotTestable, Violation
from conformance.core.profiles import PROFILES
from conformance.targets.acp import machine
from conformance.targets.acp.machine import Pace, Replay, SequenceRun, Step
from conformance.targets.acp.sequences import SequenceFailure, SequencePrerequisite


def run(check) -> tuple[int, object, FuzzFailure | None]:
    target = SimpleNamespace(harness=SimpleNamespace(closing=False))

    async def main():
        return await anyio.to_thread.run_sync(
            lambda: run_fuzz(target, st.integers(0, 1000), check, PROFILES["smoke"], seed_value=0)
        )

    return anyio.run(main)


def test_a_failure_that_does_not_replay_is_reported_with_its_input() -> None:
    seen: list[int] = []

    async def fails_once(value: int) -> None:
        seen.append(value)
        if len(seen) == 3:
            raise FuzzFailure(f"input {value} broke a rule", rule="some-rule")

    _, failing, failure = run(fails_once)
    assert failure is not None and failure.rule == "some-rule"
    assert failing == seen[2]
    assert f"input {seen[2]} broke a rule" in str(failure) and "did not fail again" in str(failure)


def test_a_failure_that_replays_is_reported_as_it_is() -> None:
    async def fails_on_big(value: int) -> None:
        if value > 10:
            raise FuzzFailure(f"{value} is big", rule="some-rule")

    _, failing, failure = run(fails_on_big)
    assert failing == 11 and str(failure) == "11 is big"


def sequence_outcome(
    monkeypatch: pytest.MonkeyPatch,
    rule: str,
    reproduced: tuple[int, int],
    pace: Pace | None = None,
    replays: tuple[Replay, ...] = (),
    details: dict | None = None,
) -> BaseException | None:
    """The model-based sequence case on a scripted run that found a failure under ``rule``, its
    replays alone ending as ``replays``: the signal it ended with."""
    seen = (
        "not reproducible when replayed alone (0 of 3; only in the full run)" if not reproduced[0] else "seen"
    )
    found = SequenceRun(
        "ci",
        0,
        5,
        seen,
        [Step("new", ref="s0")],
        rule=rule,
        reproduced=reproduced,
        pace=pace,
        replays=replays,
    )
    monkeypatch.setattr(sequence_case, "run_sequences", lambda *args, **kwargs: found)

    async def new_session() -> str:
        return "s-1"

    config = SimpleNamespace(profile="ci", seed=0, report_dir=None)
    acp: Any = SimpleNamespace(harness=SimpleNamespace(config=config), new_session=new_session)
    try:
        anyio.run(sequence_case.model_based_sequences, acp, {} if details is None else details)
    except BaseException as exc:  # the signal the case ended with is its outcome
        return exc
    return None


def test_twins_that_parted_only_in_the_full_run_are_inconclusive_not_a_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    unconfirmed = sequence_outcome(monkeypatch, "twins-differ", (0, 3))
    assert isinstance(unconfirmed, MissingInput)
    assert unconfirmed.message.startswith("inconclusive: twins parted in the full run")
    assert isinstance(sequence_outcome(monkeypatch, "twins-differ", (3, 3), Pace()), Violation)
    # An answer the model forbids is wrong whenever it is seen, replayed alone or not.
    assert isinstance(sequence_outcome(monkeypatch, "unknown-id", (0, 3)), Violation)


# -- replays alone that did not run to their end ---------------------------------------------------

TWINS = SequenceFailure("step 4 list(): s0 answered idle and its twin active", "twins-differ")
OTHER = SequenceFailure("step 2 status(u0): error -32603 for an unknown id", "unknown-error-code")
STEPS = [Step("new", ref="s0"), Step("status", ref="s0"), Step("list"), Step("list")]


def scripted_replays(monkeypatch: pytest.MonkeyPatch, *endings: Any) -> None:
    """Replays alone that end, one after the other, as scripted: a failure, "lost" (a step lost the
    step that created its session), or None (every step ran, nothing broken)."""
    script = iter(endings)

    def replayed(target: Any, steps: list[Step], stop: Any, pace: Any) -> tuple[Any, list[Step], str]:
        ending = next(script)
        if ending == "lost":
            return None, steps[:1], "step 2 status(s0) uses s0 before a step creates it"
        if isinstance(ending, SequenceFailure):
            return ending, steps[:2], ""
        return None, list(steps), ""

    monkeypatch.setattr(machine, "_replayed", replayed)


def test_replays_that_ended_early_are_not_counted_as_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    """The three paces tried alone: one broke another rule, one lost a session, one ran clean: the
    failure did not come again in 1 replay that ran to its end, not in 3."""
    scripted_replays(monkeypatch, OTHER, "lost", None)
    target: Any = SimpleNamespace(harness=SimpleNamespace(config=SimpleNamespace(hold_seconds=1.0)))
    found = machine.minimize(target, STEPS, TWINS)
    assert found.reproduced == (0, 1)
    assert [r.ending for r in found.replays] == ["other", "cut", "clean"]
    assert [r.to_its_end for r in found.replays] == [False, False, True]
    assert found.message.startswith("not reproducible when replayed alone (0 of 1:")
    assert "2 more replays ended early, not counted" in found.message
    assert found.replays[0].failure is OTHER and "uses s0 before a step creates it" in found.replays[1].why


def test_a_replay_that_broke_another_rule_is_that_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    replays = (
        Replay("other", 2, 4, "as fast as the agent answers", OTHER),
        Replay("clean", 4, 4, "at the times its steps ran when it was found"),
    )
    details: dict = {}
    found = sequence_outcome(monkeypatch, "twins-differ", (0, 1), replays=replays, details=details)
    assert isinstance(found, Violation) and found.rule == "unknown-error-code"
    assert found.message.startswith(
        "replayed alone (as fast as the agent answers), the sequence in which twins"
    )
    assert "error -32603 for an unknown id" in found.message
    assert details["found in a replay"]["failure"] == str(OTHER)
    assert [r["ending"] for r in details["replays"]] == ["other", "clean"]
    assert (
        details["reproduced"]["text"]
        == "0 of 1: only in the full run; 1 more replay ended early, not counted"
    )
    prerequisite = SequencePrerequisite("step 1 new(s0): session/new failed", "prerequisite")
    failed = sequence_outcome(
        monkeypatch, "twins-differ", (0, 0), replays=(Replay("other", 1, 4, "as fast", prerequisite),)
    )
    assert isinstance(failed, NotTestable)  # the agent made the check impossible: a failure


def test_replays_cut_short_leave_the_twins_inconclusive_and_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    replays = (
        Replay("cut", 1, 4, "as fast as the agent answers", why="step 2 uses s0 before a step creates it"),
    )
    details: dict = {}
    found = sequence_outcome(monkeypatch, "twins-differ", (0, 0), replays=replays, details=details)
    assert isinstance(found, MissingInput) and found.message.startswith("inconclusive: twins parted")
    assert "1 of the 1 replays alone ended early and are not counted: ended early" in found.message
    assert details["reproduced"]["text"] == "no replay alone ran to its end (1 ended early)"


# -- the run's own confirming replays of a twins' difference ---------------------------------------


def comparing(*views: Any) -> Any:
    """A driver whose confirming replays return ``views`` one after the other: the twins' answers at
    the step, or why the replay ended before it."""
    from conformance.targets.acp.sequences import Driver

    driver: Any = Driver.__new__(Driver)
    driver.twin_views, driver.parted, driver.cut_short = {}, set(), {}
    driver.confirming, driver.swapped, driver.steps = False, False, [Step("new", ref="s0")]
    script = iter(views)

    async def replay_views(ref: str, *, swapped: bool) -> Any:
        return next(script)

    driver._replay_views = replay_views
    return driver


def test_a_confirming_replay_that_ended_early_judges_nothing_and_says_why() -> None:
    cut = "it broke unknown-error-code: step 1 status(u0): error -32603"
    driver = comparing(cut, ("ok", "error -32000"), cut)
    first, second = Step("prompt", ref="s0"), Step("prompt", ref="s0")
    anyio.run(driver._compare, first, "s0", "prompt", "ok", "error -32000")
    assert "s0" not in driver.parted  # compared again at a later step: not cleared by a replay cut short
    assert first.answer.endswith(f"the replay with the roles swapped ended early, not judged: {cut})")
    anyio.run(driver._compare, second, "s0", "prompt", "ok", "error -32000")
    assert "the replay as it was ended early, not judged" in second.answer
    assert "s0" in driver.parted  # CUT_SHORT replays of it ended early: left alone, as said


def test_a_confirming_replay_that_ran_still_blames_or_clears() -> None:
    blamed = comparing(("ok", "error -32000"), ("ok", "error -32000"))
    with pytest.raises(SequenceFailure) as raised:
        anyio.run(blamed._compare, Step("prompt", ref="s0"), "s0", "prompt", "ok", "error -32000")
    assert raised.value.rule == "twins-differ"
    cleared = comparing(("error -32000", "ok"))
    step = Step("prompt", ref="s0")
    anyio.run(cleared._compare, step, "s0", "prompt", "ok", "error -32000")
    assert "s0" in cleared.parted and "the pair's places, not status" in step.answer

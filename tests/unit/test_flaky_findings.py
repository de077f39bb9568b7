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
from conformance.core.outcomes import MissingInput, Violation
from conformance.core.profiles import PROFILES
from conformance.targets.acp.machine import Pace, SequenceRun, Step


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
    monkeypatch: pytest.MonkeyPatch, rule: str, reproduced: tuple[int, int], pace: Pace | None = None
) -> BaseException | None:
    """The model-based sequence case on a scripted run that found a failure under ``rule``: the
    signal it ended with."""
    seen = (
        "not reproducible when replayed alone (0 of 3; only in the full run)" if not reproduced[0] else "seen"
    )
    found = SequenceRun(
        "ci", 0, 5, seen, [Step("new", ref="s0")], rule=rule, reproduced=reproduced, pace=pace
    )
    monkeypatch.setattr(sequence_case, "run_sequences", lambda *args, **kwargs: found)

    async def new_session() -> str:
        return "s-1"

    config = SimpleNamespace(profile="ci", seed=0, report_dir=None)
    acp: Any = SimpleNamespace(harness=SimpleNamespace(config=config), new_session=new_session)
    try:
        anyio.run(sequence_case.model_based_sequences, acp, {})
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

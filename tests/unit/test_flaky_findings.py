"""A generated input that fails once and not when Hypothesis replays it (a bug that depends on
timing, or on what ran before) is still a finding: the fuzz runner reports what it saw, saying
it did not fail again, instead of letting Hypothesis's Flaky error reach the case as a harness
error. Judged on a check that fails exactly once, with no agent."""

from __future__ import annotations

from types import SimpleNamespace

import anyio
import anyio.to_thread
from hypothesis import strategies as st

from conformance.core.fuzzing import FuzzFailure, run_fuzz
from conformance.core.profiles import PROFILES


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

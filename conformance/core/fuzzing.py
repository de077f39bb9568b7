"""Generated-input fuzzing for any target: Hypothesis draws inputs, a case's check judges each.

A check runs on the runtime's loop; Hypothesis runs in a worker thread and shrinks a failing
input to a small one, which the failure names. A campaign's round stops at its time budget.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

import anyio.from_thread
from hypothesis import example, given, seed
from hypothesis import strategies as st
from hypothesis.errors import Flaky

from conformance.core import progress
from conformance.core.outcomes import RunInterrupted
from conformance.core.profiles import BudgetSpent, Profile, hypothesis_settings

__all__ = ["FUZZ_EXAMPLES", "FuzzFailure", "run_fuzz"]

FUZZ_EXAMPLES = {"ci": 60, "dev": 150, "smoke": 10, "thorough": 1000, "campaign": 100_000}


class FuzzFailure(AssertionError):
    """An input broke a rule; ``rule`` names which (one of the case's declared rules), ``died``
    says the agent process ended on it (its stderr may then tell which layer crashed)."""

    def __init__(
        self, message: str, *, rule: str | None = None, died: bool = False, layer: str | None = None
    ) -> None:
        super().__init__(message)
        self.rule = rule
        self.died = died
        self.layer = layer  # where the evidence shows the crash was (see layers.stderr_layer)


def run_fuzz(
    target: Any,  # a target: its harness says when the run is closing
    strategy: st.SearchStrategy[Any],
    check: Callable[[Any], Coroutine[Any, Any, None]],
    profile: Profile,
    seed_value: int | None,
    database_dir: Path | None = None,
    examples: Sequence[Any] = (),
) -> tuple[int, Any, FuzzFailure | None]:
    """Run ``check`` on drawn inputs (from a worker thread): (seed, failing input, failure). The
    ``examples`` run first, whatever the seed and the budget: inputs that must always be tried."""
    chosen = seed_value if seed_value is not None else profile.fixed_seed
    if chosen is None:
        chosen = random.SystemRandom().randrange(2**32)
    last: dict[str, Any] = {}
    started = time.monotonic()

    def test(value: Any) -> None:
        if target.harness.closing:
            raise RunInterrupted
        # The budget is wall time, the agent's answers included: a slow agent stops the inputs at
        # it (a campaign's round always; another profile while nothing has failed yet, so that a
        # failure is still shrunk).
        over = time.monotonic() - started > profile.budget and last.get("count", 0) >= max(1, len(examples))
        if over and (profile.stop_at_budget or "first_failure" not in last):
            raise BudgetSpent
        last["input"] = value
        last["count"] = last.get("count", 0) + 1
        progress.example()
        try:
            anyio.from_thread.run(check, value)
        except FuzzFailure as failure:
            last.setdefault("first_failure", (value, failure))
            raise

    try:
        _drawn(test, strategy, examples, profile, chosen, database_dir)()
    except BudgetSpent:
        pass
    except FuzzFailure as exc:
        return chosen, last.get("input"), exc
    except Flaky:  # it failed once and not when Hypothesis replayed it: what was seen stands
        if "first_failure" not in last:
            raise
        value, first = last["first_failure"]
        return chosen, value, _not_failing_again(first)
    return chosen, None, None


def _drawn(
    test: Callable[[Any], None],
    strategy: st.SearchStrategy[Any],
    examples: Sequence[Any],
    profile: Profile,
    chosen: int,
    database_dir: Path | None,
) -> Callable[..., None]:
    """``test`` under Hypothesis: the ``examples`` first, then inputs drawn from ``strategy``."""
    # Hypothesis' decorators draw the test's argument: what they return is called with none.
    drawn: Callable[..., None] = test
    for value in reversed(examples):
        drawn = example(value)(drawn)
    return seed(chosen)(
        hypothesis_settings(profile, FUZZ_EXAMPLES[profile.name], database_dir)(given(strategy)(drawn))
    )


def _not_failing_again(first: FuzzFailure) -> FuzzFailure:
    """The failure an input showed once, saying that it did not fail when Hypothesis replayed it."""
    return FuzzFailure(
        f"{first} (this input did not fail again when replayed: the agent's behaviour depends on timing or "
        "on what ran before)",
        rule=first.rule,
        died=first.died,
        layer=first.layer,
    )

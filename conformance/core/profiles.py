"""The budgets of the Hypothesis-driven cases (sequences and fuzzers of every target): --profile."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from conformance.core.examples_db import database_for_case

__all__ = ["PROFILES", "BudgetSpent", "Profile", "ShrinkBudgetSpent", "hypothesis_dir", "hypothesis_settings"]


class BudgetSpent(KeyboardInterrupt):
    """Raised by a run of a profile that stops at its budget. Hypothesis lets a KeyboardInterrupt
    through at once (any other exception is a failure to replay and shrink); the run catches it
    and ends as if its examples ran out."""


class ShrinkBudgetSpent(BudgetSpent):
    """Raised when shrinking a failure has taken the profile's shrink budget: the run reports the
    smallest failing example seen so far (a rare or timing-dependent bug can make Hypothesis
    shrink for minutes)."""


@dataclass(frozen=True)
class Profile:
    name: str
    max_examples: int
    steps: int
    restarts_per_example: int
    restart_odds: int  # 1 in this many draws of the restart rule restarts (a restart costs seconds)
    fixed_seed: int | None  # a fixed seed makes the run derandomized
    database: bool
    budget: float = 20.0  # seconds of generating before further examples run dry
    # Restarts Hypothesis may draw in a whole run before a failure is seen (None: no cap). A
    # restart costs a process start (0.1-1.6 s); Hypothesis replays a prefix that drew one in
    # many later examples, so uncapped they are most of the case's time.
    max_restarts: int | None = 3
    # Past the budget, stop (a campaign's round ends on time) rather than run the remaining
    # examples dry (which bounds a slow agent's run and still reports how many examples ran).
    stop_at_budget: bool = False
    # Seconds of shrinking after the first failure; then the smallest failing example seen so far
    # is reported (None: until Hypothesis is done).
    shrink_budget: float | None = 20.0
    # Seconds a state a case relies on (parked, inactive, evicted, pending) is watched before it is
    # believed to stay: a state forgotten a few seconds later shows only to a watch that long (--hold).
    hold: float = 3.0


PROFILES = {
    "ci": Profile(
        "ci", 140, steps=40, restarts_per_example=1, restart_odds=256, fixed_seed=0, database=False
    ),
    "dev": Profile(
        "dev", 200, steps=20, restarts_per_example=1, restart_odds=32, fixed_seed=None, database=False
    ),
    # A quick look (a pre-commit hook, a transport check): every case runs, with a tenth of the
    # ci budget for the generated ones. Its verdict says "smoke" in every report.
    "smoke": Profile(
        "smoke",
        15,
        steps=20,
        restarts_per_example=1,
        restart_odds=32,
        fixed_seed=0,
        database=False,
        budget=5.0,
        max_restarts=1,
        shrink_budget=5.0,
        hold=1.0,
    ),
    # A campaign's rounds (session-status-conformance campaign): fresh seeds, the shared example
    # database, a round's time budget (CONFORMANCE_ROUND_SECONDS, set by the campaign), and the ci
    # profile's way of drawing (steps, restarts), so what a campaign finds replays in a ci run.
    "campaign": Profile(
        "campaign",
        100_000,
        steps=40,
        restarts_per_example=1,
        restart_odds=256,
        fixed_seed=None,
        database=True,
        budget=float(os.environ.get("CONFORMANCE_ROUND_SECONDS") or 60),
        max_restarts=None,
        stop_at_budget=True,
    ),
    "thorough": Profile(
        "thorough",
        1000,
        steps=40,
        restarts_per_example=2,
        restart_odds=8,
        fixed_seed=None,
        database=True,
        budget=900,
        max_restarts=None,
        shrink_budget=None,
        hold=15.0,
    ),
}


def generation(profile: Profile) -> str:
    """How a profile draws: saved choices replay as the same program only in a profile that draws
    the same way, and Hypothesis deletes a saved failure a replay does not reproduce. So the shared
    database keeps each way of drawing apart (ci and campaign draw alike)."""
    return f"steps{profile.steps}-restarts{profile.restarts_per_example}in{profile.restart_odds}"


def hypothesis_settings(profile: Profile, examples: int, database_dir: Path | None, **extra: Any) -> settings:
    """Settings shared by the sequence and fuzz runs: quiet, no deadline, no explain phase (the
    last run must be the shrunk failure), and the example database: the one given with --db in
    every profile (what it holds is replayed first), else only the thorough profile's own."""
    database = database_for_case(generation(profile))
    if database is None and profile.database and database_dir:
        database = DirectoryBasedExampleDatabase(str(database_dir))
    return settings(
        max_examples=examples,
        database=database,
        deadline=None,
        # HealthCheckMeta.__iter__ is unannotated: pyright would take its members for the metaclass.
        suppress_health_check=cast("list[HealthCheck]", list(HealthCheck)),
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
        report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
        print_blob=False,
        **extra,
    )


def hypothesis_dir(report_dir: Path) -> Path:
    """The example database of the thorough profile: beside the runs, in reports/.hypothesis."""
    return report_dir.parent / ".hypothesis"

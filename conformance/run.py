"""One run of the suite, whichever way it is started (the pytest plugin, which the command line
runs in-process; the cases run directly for tools and tests; replay and reproduce): its seed, its
report and what it says of the target, the revision it checks, what it selected, its verdict.
Each entry point drives it the same way, so they cannot drift apart."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from conformance.core.config import AgentConfig
from conformance.core.outcomes import Verdict
from conformance.reports.report import RunReport
from conformance.runtime import Runtime
from conformance.targets import named

__all__ = ["Run", "choose_seed", "selection_record"]


def choose_seed(profile: str, given: int | None) -> int:
    """One seed per run, shared by every worker and case, and printed in the summary: the one
    given, else fixed in the ci profile, else drawn."""
    if given is not None:
        return given
    return 0 if profile == "ci" else random.SystemRandom().randrange(2**32)


def selection_record(
    every: Iterable[str],
    ran: Iterable[str],
    *,
    keyword: str | None = None,
    markers: str | None = None,
    args: list[str] | None = None,
    stopped: str | bool | None = None,
) -> dict[str, Any] | None:
    """What the run selected, when it is not every case of its target (a partial run gets no
    certificate), else None. ``stopped``: why the run ended early (-x, --maxfail: pytest's message, or True)."""
    every, ran = set(every), set(ran)
    if not every or every <= ran:
        return None
    return {
        "keyword": keyword or None,
        "markers": markers or None,
        "args": list(args or []),
        "selected": len(ran & every),
        "total": len(every),
        "deselected": len(every - ran),
        "stopped": str(stopped) if stopped else None,
    }


@dataclass
class Run:
    """A run's configuration and its report, from the options to the verdict."""

    config: AgentConfig
    strict: bool
    report: RunReport

    @classmethod
    def begin(cls, config: AgentConfig, *, strict: bool) -> Run:
        """The run's seed chosen (into ``config``) and its report set up for its target."""
        config.seed = choose_seed(config.profile, config.seed)
        declaration = named(config.target)
        return cls(config, strict, RunReport.for_run(config, declaration, strict=strict))

    def runtime(self, revision: str | None = None) -> Runtime:
        """A runtime for the run's cases (an xdist worker, a replay: ``revision``, the one the run
        checks, as told)."""
        return Runtime(self.config, strict=self.strict, revision=revision)

    def started(self, runtime: Runtime, init: dict[str, Any], spec: str) -> None:
        """What the started target said of itself, and the revision the run checks (--spec, or
        what the agent answers): into the report, and the runtime checks it."""
        self.report.describe_target(runtime.declaration, runtime.target, init)
        self.report.revision, self.report.revision_why = runtime.resolve_revision(spec)

    def verdict(self) -> Verdict:
        return self.report.verdict()

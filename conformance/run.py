"""The engine: one run of the suite, whichever way it is started, from its options to its verdict.

A `Run` owns the pre-flight (the target started once, what it says of itself, the spec revision
the run checks), the selection and order of the cases, each case's step, the verdict with its
baseline gate, and the close; it tells what happens as typed events (conformance.events) to its
handlers. The pytest plugin (the command line runs it in-process), direct runs (the project's own
variant tests, tools), `replay` and `reproduce` are adapters of it: they drive the same steps, so
they cannot drift apart. A run that has no pytest around it runs whole through `Run.execute`.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from conformance.core.config import AgentConfig
from conformance.core.outcomes import AgentExited, CaseSignal, Unanswered, Verdict
from conformance.core.registry import CASES, Case
from conformance.core.transcript import Entry, printed_instead
from conformance.events import (
    CaseFinished,
    CaseStarted,
    Event,
    Handler,
    RunFinished,
    RunStarted,
    TargetDescribed,
)
from conformance.reports.baseline import Baseline, BaselineResult, is_todo, load_baseline, write_baseline
from conformance.reports.records import CaseOutcome
from conformance.reports.report import RunReport, case_record, clean
from conformance.runtime import CaseRecord, Runtime
from conformance.targets import named
from conformance.targets.base import Target
from conformance.transport.stdio import LaunchError

__all__ = [
    "STARTING",
    "Run",
    "choose_seed",
    "in_order",
    "keyword_selects",
    "ordered",
    "preflight_message",
    "selected",
    "selection_record",
]

E = TypeVar("E", bound=Event)

# What keeps the target from starting: the run has no case to run, and says why (exit 2).
STARTING = (LaunchError, CaseSignal, AgentExited, TimeoutError, Unanswered)


def choose_seed(profile: str, given: int | None) -> int:
    """One seed per run, shared by every worker and case, and printed in the summary: the one
    given, else fixed in the ci profile, else drawn."""
    if given is not None:
        return given
    return 0 if profile == "ci" else random.SystemRandom().randrange(2**32)


def in_order(cases: Iterable[Case]) -> list[Case]:
    """The suite's one order of cases: case files by name, cases in the order they are declared in
    them (the order pytest collects them in; the plugin sorts its items by it too)."""
    position = {case_id: n for n, case_id in enumerate(CASES)}
    return sorted(cases, key=lambda c: (c.module, position.get(c.id, 0)))


def ordered(target: str) -> list[Case]:
    """Every registered case of ``target``, in the suite's order."""
    return in_order(c for c in CASES.values() if c.target == target)


def keyword_selects(case: Case, expression: str | None) -> bool:
    """Whether ``-k expression`` selects the case, as pytest matches it: by its id, its module's
    file name, its folder and its level marker, case-insensitively, by substring."""
    if expression is None:
        return True
    from _pytest.mark.expression import Expression

    names = [case.id, case.module.rsplit(".", 1)[-1] + ".py", "cases", case.level.marker]

    def matches(word: str, /, **_: str | int | bool | None) -> bool:
        return any(word.lower() in n.lower() for n in names)

    return Expression.compile(expression).evaluate(matches)


def selected(target: str, case_ids: Iterable[str] | None = None, keyword: str | None = None) -> list[Case]:
    """The cases a run of ``target`` runs, in the suite's order: all of them, or those named in
    ``case_ids``, or those ``-k keyword`` selects (KeyError: an id that is no case of the target)."""
    mine = [c for c in ordered(target) if keyword_selects(c, keyword)]
    if case_ids is None:
        return mine
    wanted = set(case_ids)
    unknown = wanted - {c.id for c in ordered(target)}
    if unknown:
        raise KeyError(f"no {target} cases named {sorted(unknown)}")
    return [c for c in mine if c.id in wanted]


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


@dataclass(eq=False)
class Run:
    """A run's configuration, its report and its target's runtime, from the options to the verdict."""

    config: AgentConfig
    strict: bool
    report: RunReport
    declaration: type[Target]
    # Where its reports go (report.json and the files beside it); None: a run that writes none.
    report_dir: Path | None = None
    # The spec revision its cases check when the run is told it (an xdist worker, a replay).
    revision: str | None = None
    baseline: Baseline | None = None
    update_baseline: bool = False
    handlers: list[Handler] = field(default_factory=list)
    _runtime: Runtime | None = None
    _closed: bool = False

    @classmethod
    def begin(
        cls,
        config: AgentConfig,
        *,
        strict: bool,
        report_dir: Path | None = None,
        revision: str | None = None,
        baseline: Baseline | None = None,
        update_baseline: bool = False,
        handlers: Sequence[Handler] = (),
    ) -> Run:
        """The run's seed chosen (into ``config``) and its report set up for its target."""
        config.seed = choose_seed(config.profile, config.seed)
        declaration = named(config.target)  # the run's target, resolved once for the run
        report = RunReport.for_run(config, declaration, strict=strict)
        return cls(
            config,
            strict,
            report,
            declaration,
            report_dir,
            revision,
            baseline,
            update_baseline,
            list(handlers),
        )

    def emit(self, event: E) -> E:
        for handler in self.handlers:
            handler(event)
        return event

    @property
    def runtime(self) -> Runtime:
        """The run's runtime: its event loop and its target, started by `start` (or by the first
        case, on an xdist worker)."""
        if self._runtime is None:
            self._runtime = Runtime(
                self.config, strict=self.strict, revision=self.revision, declaration=self.declaration
            )
        return self._runtime

    # -- the pre-flight --------------------------------------------------------------------------

    def start(self, spec: str | None = "auto") -> TargetDescribed | RunFinished:
        """The target started and initialized once, before any case: what it says of itself, and
        the revision the run checks (``spec``: --spec, "auto" to ask the target, None to keep the
        one the run was told); RunStarted, then TargetDescribed told. A target that cannot start
        ends the run (RunFinished, its report written, exit 2, or 3 when its handshake said it has
        no status method); a wrong --spec raises CaseSignal; Ctrl-C while it starts writes the
        partial report, then goes on."""
        self.emit(RunStarted(self.config.target, self.config.seed, self.strict, self.report_dir))
        runtime = self.runtime
        report = self.report
        try:
            init = runtime.start()
        except STARTING as exc:
            runtime.close()
            message = preflight_message(
                exc, self.declaration, self.config.transport, runtime.transcript.since(0)
            )
            self._describe_partial_handshake("no case could run")
            report.fatal = clean(f"cannot certify: {message}")
            report.process_groups = list(runtime.pgids)
            return self.finish()
        except BaseException:  # Ctrl-C while it starts: stop what started (a server outlives its pipes)
            runtime.close()
            self._describe_partial_handshake("the run was interrupted")
            report.process_groups = list(runtime.pgids)
            with contextlib.suppress(OSError):  # a report folder it cannot write: the interrupt goes on
                self.finish(incomplete=True)
            raise
        try:
            report.describe_target(runtime.declaration, runtime.target, init)
            if spec is not None:
                report.revision, report.revision_why = runtime.resolve_revision(spec)
            else:
                report.revision = runtime.checked_revision().name
                report.revision_why = "as recorded"
        except BaseException:
            runtime.close()
            raise
        self.revision = report.revision
        return self.emit(
            TargetDescribed(self.config.target, report.revision, report.revision_why, report.advertised, init)
        )

    def _describe_partial_handshake(self, why: str) -> None:
        """What the handshake said before it stopped (initialize answered, then authentication or a
        slow session/new stopped it): the agent's identity and capabilities are kept in the report,
        and whether it advertises the status method, where initialize alone tells."""
        runtime, report = self.runtime, self.report
        said = runtime.handshake_said
        known = bool(said) and runtime.target.advertisement_known()
        if said:
            report.describe_target(runtime.declaration, runtime.target, said, advertisement_known=known)
            report.revision_why = f"not determined: {why}"
        elif why == "no case could run":
            report.revision_why = "not determined: the agent could not be started and initialized"
        else:
            report.revision_why = f"not determined: {why} before the agent answered initialize"

    # -- the cases -------------------------------------------------------------------------------

    def cases(self, case_ids: Iterable[str] | None = None, keyword: str | None = None) -> list[Case]:
        """The cases this run runs, in the suite's order (see `selected`)."""
        return selected(self.config.target, case_ids, keyword)

    def run_case(self, case: Case) -> tuple[CaseRecord, CaseOutcome]:
        """One case on the run's target: what the harness recorded, and its report entry (with its
        baseline mark). Not yet the report's: `case_finished` adds it, in whichever process runs
        the report (an xdist worker's entries travel to the controller)."""
        self.emit(CaseStarted(case.id))
        record = self.runtime.run_case(case)
        return record, self.entry(case, record)

    def entry(
        self, case: Case, record: CaseRecord | None, *, error: str = "harness error", duration: float = 0.0
    ) -> CaseOutcome:
        """The case's entry of report.json: its record, or (``record`` None) the harness error that
        kept it from having one."""
        if record is None:
            entry = case_record(
                case, None, self.config.secrets, error=error, duration=duration, revision=self.revision
            )
        else:
            entry = case_record(case, record, self.config.secrets, report_dir=self.report_dir)
        if self.baseline is not None:
            mark = self.baseline.classify(case.id, entry.outcome, self.strict)
            if mark is not None:
                entry.baseline = mark
        return entry

    def case_finished(self, entry: CaseOutcome) -> CaseFinished:
        """A case's entry into the run's report; CaseFinished told."""
        self.report.add(entry)
        return self.emit(CaseFinished(entry.id, entry.outcome, entry))

    # -- the end ---------------------------------------------------------------------------------

    def finish(self, *, incomplete: bool = False, selection: dict[str, Any] | None = None) -> RunFinished:
        """The verdict: the baseline applied, the exit code it gates, RunFinished told (its
        handlers write the report files)."""
        report = self.report
        report.incomplete = report.incomplete or incomplete
        if not report.incomplete and not report.fatal:
            report.selection = selection
            self._apply_baseline()
        verdict = report.verdict()
        if report.fatal and verdict is not Verdict.UNIMPLEMENTED:
            gated, line = Verdict.ERROR, report.fatal
        else:
            gated, line = report.gate()
        path = self.report_dir / "report.json" if self.report_dir is not None else None
        finished = RunFinished(
            verdict, gated.exit_code, line, report, path, fatal=report.fatal, incomplete=report.incomplete
        )
        return self.emit(finished)

    def _apply_baseline(self) -> None:
        baseline, report = self.baseline, self.report
        if baseline is None:
            return
        if self.update_baseline:
            added, removed = write_baseline(baseline.path, report.cases, self.strict, baseline)
            report.notes.append(
                f"wrote baseline {baseline.path}: {added} entr(ies) added, {removed} removed; this run's failures "
                "are its known failures now (give each entry a real reason)"
            )
            baseline = self.baseline = load_baseline(baseline.path)
            for c in report.cases:
                c.baseline = baseline.classify(c.id, c.outcome, self.strict)
        marks: dict[str, list[str]] = {"known": [], "new": [], "stale": []}
        for c in report.cases:
            if c.baseline in marks:
                marks[c.baseline].append(c.id)
        todo = sorted(c for c, reason in baseline.entries.items() if is_todo(reason))
        report.baseline = BaselineResult(
            str(baseline.path),
            sorted(marks["known"]),
            sorted(marks["new"]),
            sorted(marks["stale"]),
            todo,
            self.strict,
        )

    @property
    def running(self) -> bool:
        """Its runtime exists and is not closed (a case may be running on it)."""
        return self._runtime is not None and not self._closed

    def close(self) -> None:
        """The target stopped (its whole process group) and the runtime's loop ended; once."""
        if self._runtime is not None and not self._closed:
            self._closed = True
            self._runtime.close()

    def verdict(self) -> Verdict:
        return self.report.verdict()

    # -- a whole run, without pytest --------------------------------------------------------------

    def execute(
        self, case_ids: Iterable[str] | None = None, *, keyword: str | None = None, spec: str | None = "auto"
    ) -> Iterator[Event]:
        """The whole run, step by step, as its events: the pre-flight, the cases (``case_ids`` or
        ``keyword`` select them, as `selected` does; a partial run gets no certificate), the end."""
        chosen = self.cases(case_ids, keyword)  # an unknown id is said before the target starts
        every = [c.id for c in self.cases()]
        try:
            described = self.start(spec)
            yield described
            if isinstance(described, RunFinished):
                return
            for case in chosen:
                yield CaseStarted(case.id)
                _, entry = self.run_case(case)
                yield self.case_finished(entry)
            args = [c.id for c in chosen] if case_ids is not None else []
            yield self.finish(
                selection=selection_record(every, [c.id for c in chosen], keyword=keyword, args=args)
            )
        finally:
            self.close()


def preflight_message(
    exc: BaseException, target: type[Target], transport: str, frames: Sequence[Entry] = ()
) -> str:
    """Why the target could not be started and initialized, in one line (``frames``: what it
    wrote meanwhile, to say what it printed instead of answering)."""
    noun = target.noun  # what the target calls its system
    if isinstance(exc, AgentExited):
        lines = [ln for ln in exc.stderr_tail.strip().splitlines() if ln.strip()]
        tail = f"; its last stderr line: {lines[-1][:200]}" if lines else ""
        return f"the {noun} exited with code {exc.code} before answering {exc.method or 'initialize'}{tail}"
    if isinstance(exc, Unanswered) and exc.method not in target.handshake_methods:
        return (
            f"the {noun} answered the handshake, but {exc.method} (id {exc.request_id}) got no answer: {exc.why}; a "
            f"slower {noun} needs a larger {exc.option}"
        )
    if isinstance(exc, TimeoutError | Unanswered):
        what = exc.why if isinstance(exc, Unanswered) else str(exc) or "no answer"
        method = exc.method if isinstance(exc, Unanswered) else "initialize"
        subject = target.subject
        printed = printed_instead(list(frames))
        instead = f"; {printed}" if printed else ""
        return (
            f"the {noun} did not answer {method} ({what}){instead}; does it serve {subject} over {transport}?"
        )
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__

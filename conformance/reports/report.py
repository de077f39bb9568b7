"""The run report: collected per-case records, the verdict, report.json and the summary table."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import textwrap
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conformance import COMMAND, __version__
from conformance.core import revisions
from conformance.core.outcomes import Outcome, Verdict, decides_errors, verdict
from conformance.core.redact import redact, redacted_options
from conformance.core.registry import Level
from conformance.core.traceability import coverage
from conformance.reports.baseline import BaselineResult
from conformance.reports.records import FORMAT, CaseOutcome, SpecRef, System
from conformance.reports.render import badge_svg, html_report, markdown_summary, watched_text, wire_text
from conformance.reports.text import clean, describe_selection, jsonable, prompts_why, shorten

__all__ = [
    "RunReport",
    "default_report_dir",
    "describe_selection",
    "reproduce_command",
    "shorten",
    "shown_path",
]

OUTCOME_ORDER = [o.value for o in Outcome]


def case_record(
    case: Any,
    record: Any,
    secrets: list[str],
    *,
    error: str = "",
    duration: float = 0.0,
    report_dir: str | Path | None = None,
    revision: str | None = None,
) -> CaseOutcome:
    """A case's entry in report.json, from the harness's record of it (redacted, every value one
    JSON holds); ``record`` None: the harness failed before the case produced one (``error`` says
    how). A failure (fail, warn, error) carries the one command that reproduces it
    (``reproduce``), given the run's ``report_dir``. The sentences quoted are those of the
    revision the record was checked against (else ``revision``, the run's). A record that cannot
    be turned into an entry is this case's error, never the run's."""
    try:
        return _case_record(case, record, secrets, error, duration, report_dir, revision)
    except Exception as exc:
        if record is None:
            raise
        recorded = f"harness error while recording the case's result: {type(exc).__name__}: {exc}"
        return _case_record(case, None, secrets, recorded, record.duration, report_dir, revision)


def _case_record(
    case: Any,
    record: Any,
    secrets: list[str],
    error: str,
    duration: float,
    report_dir: str | Path | None,
    revision: str | None,
) -> CaseOutcome:
    revision = (record.revision if record is not None else "") or revision
    spec = _spec_json(case, revision=revision)
    if record is None:
        result: dict[str, Any] = {"outcome": Outcome.ERROR.value, "message": error}
        body: dict[str, Any] = {"duration": duration, "transcript": [], "stderr": "", "reproduction": []}
    else:
        r = record.result
        spec = _spec_json(case, r.rule, r.spec_key, revision)
        result = {
            "outcome": r.outcome.value,
            "message": r.message,
            "expected": r.expected,
            "observed": r.observed,
        }
        if r.rule is not None:
            result["rule"] = r.rule
        body = {
            "duration": round(record.duration, 6),
            "transcript": record.transcript,
            "stderr": record.stderr,
            "reproduction": record.reproduction,
            "details": record.details,
        }
    entry = {
        "id": case.id,
        "title": case.title,
        "level": case.level.value,
        "area": case.area,
        "needs": list(case.needs),
        "spec": spec,
        **result,
        **body,
    }
    if entry["outcome"] in FAILURES:
        command = reproduce_command(case.id, entry.get("details") or {}, report_dir)
        if command is not None:
            entry["reproduce"] = command
    return CaseOutcome.from_json(redact(jsonable(entry), secrets))


FAILURES = ("fail", "warn", "error")


def shown_path(path: str | Path) -> str:
    """A path as a person types it here: relative to the working directory when it is inside it."""
    absolute = Path(path).absolute()
    try:
        return str(absolute.relative_to(Path.cwd()))
    except ValueError:
        return str(absolute)


def reproduce_command(case_id: str, details: dict[str, Any], report_dir: str | Path | None) -> str | None:
    """The one command that reproduces a case's failure, as printed: `replay` of its replay file (a
    sequence's minimal steps, a fuzz case's shrunk input), else `reproduce` of the run's report,
    which runs the case again alone with the run's options. Both say FIXED or STILL FAILING."""
    replay = details.get("replay_file")
    if isinstance(replay, str):
        return f"{COMMAND} replay {shlex.quote(shown_path(replay))}"
    if report_dir is None:
        return None
    return f"{COMMAND} reproduce {shlex.quote(shown_path(Path(report_dir) / 'report.json'))} {case_id}"


def _spec_json(
    case: Any, rule: str | None = None, key: str | None = None, revision: str | None = None
) -> dict[str, str]:
    spec = revisions.spec_of(case, rule, key, revision=revision)
    return SpecRef(spec.source, spec.section, spec.sentence, spec.url).to_json()


def default_report_dir(agent_label: str, base: Path = Path("reports")) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", agent_label).strip("-")[:40] or "agent"
    return base / f"{slug}-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}"


@dataclass
class RunReport:
    command: list[str]
    cwd: str
    strict: bool
    timeout: float
    turn_timeout: float = 300.0
    max_prompts: int | None = None
    profile: str = "ci"
    seed: int | None = None
    transport: str = "stdio"
    started: float = field(default_factory=time.time)
    system: System = field(default_factory=System)  # as its target describes it (describe_target)
    cases: list[CaseOutcome] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    incomplete: bool = False  # interrupted: not every selected case ran
    fatal: str | None = None  # why no case could run (the agent could not be started)
    process_groups: list[int] = field(default_factory=list)  # of the agent processes the pre-flight started
    secrets: list[str] = field(default_factory=list)
    written: dict[str, Any] | None = None  # the body of the last report.json written
    baseline: BaselineResult | None = None
    revision: str = ""  # the spec revision checked
    revision_why: str = "the default revision"
    target: str = ""  # a registered target's name
    subject: str = "session/status"  # what is certified, as the target names it
    # Its system takes turns that cost model calls (ACP's prompts): the run counts them.
    takes_prompts: bool = False
    # Whether the target advertises its status method, and where (as its protocol spells it);
    # set from the target's driver once it has said (describe_target), None until then.
    advertised: bool | None = None
    capability: str = ""
    spec_sources: dict[str, str] = field(default_factory=dict)  # the target's titles of its spec sources
    # The protocol revision spoken on the wire, where the target's protocol has several (MCP's
    # handshake and stateless eras), apart from the spec revision the cases check; None: not told.
    wire: dict[str, Any] | None = None
    # What the run selected, when it is not every case of its target (-k, -m, a case file or
    # node id), or pytest stopped it early (-x): {"keyword", "markers", "args", "selected", "total",
    # "deselected", "stopped"}. No certificate.
    selection: dict[str, Any] | None = None
    # The run's option values (dest -> value), secrets redacted: what `reproduce` starts the agent with.
    given: dict[str, Any] = field(default_factory=dict)
    noun: str = "agent"  # what the verdicts call the system under test: agent, server, service
    embedded: bool = False  # the run certified the suite's own reference implementation
    next_step: str | None = None  # after a run of the reference: how to certify one's own

    @classmethod
    def for_run(cls, config: Any, declaration: Any, *, strict: bool) -> RunReport:
        """An empty report of a run configured by ``config`` (an AgentConfig) of the target
        ``declaration`` declares (a targets.base.Target): what it certifies, and its default
        revision, are known before the agent says anything (a refused handshake is reported as a
        run of the target it was)."""
        return cls(
            target=config.target,
            subject=declaration.subject,
            noun=declaration.noun,
            takes_prompts=declaration.turn_method is not None,
            spec_sources=dict(declaration.spec_sources),
            revision=revisions.default(config.target),
            revision_why="not determined yet: the target's default revision",
            embedded=bool(config.embedded),
            command=config.command or [str(config.url)],
            transport=config.transport,
            cwd=config.cwd,
            strict=strict,
            timeout=config.timeout,
            turn_timeout=config.turn_timeout,
            max_prompts=config.max_prompts,
            profile=config.profile,
            seed=config.seed,
            secrets=config.secrets,
            given=redacted_options(config.options, config.secrets) if config.options else {},
        )

    def describe_target(
        self, target: Any, driver: Any, init: dict[str, Any], *, advertisement_known: bool = True
    ) -> None:
        """What the started target said of itself (a targets.base.Target, its run's Driver and its
        handshake), as the target describes it; ``advertisement_known`` False: the handshake
        stopped before it told whether the status method is advertised."""
        self.system = target.describe(init)
        if self.embedded:
            command, url = ("--" + o.replace("_", "-") for o in (target.command_option, target.url_option))
            self.next_step = (
                f"next: certify your own {self.noun}: {COMMAND} {command} 'the command that starts it' "
                f"(or {url} URL, for one already running)"
            )
        wire = init.get("wire")
        self.wire = dict(wire) if isinstance(wire, dict) else None
        self.advertised = driver.advertises(target.status_need) if advertisement_known else None
        self.capability = driver.capability_name(target.status_need)

    def _sources(self) -> dict[str, str]:
        """The spec sources the revision cites, by name: the target's title for each (its URL where
        the target gives none)."""
        cited = revisions.get(self.revision).sources
        return {name: self.spec_sources.get(name) or meta.get("url") or name for name, meta in cited.items()}

    def add(self, record: CaseOutcome) -> None:
        self.cases.append(record)

    @property
    def status_advertised(self) -> bool:
        """Whether the target advertises its status method, as its driver told (describe_target):
        a run whose target never told is not taken to have one."""
        return bool(self.advertised)

    def verdict(self) -> Verdict:
        """The verdict of the cases that ran (a partial run's exit code follows it too)."""
        if self.incomplete:
            return Verdict.INCOMPLETE
        if self.fatal:
            # What the handshake said before it stopped can decide: no status method advertised.
            return Verdict.UNIMPLEMENTED if self.advertised is False else Verdict.ERROR
        return verdict(
            self._outcomes(),
            status_advertised=self.status_advertised,
            strict=self.strict,
            unprepared=bool(self.unprepared()),
        )

    def _outcomes(self, marks: dict[str, Outcome] | None = None) -> list[tuple[Outcome, Level]]:
        return [((marks or {}).get(c.id) or Outcome(c.outcome), Level(c.level)) for c in self.cases]

    @property
    def partial(self) -> bool:
        return self.selection is not None and not self.fatal and not self.incomplete

    def label(self) -> str:
        """What the certificate says: the verdict, or "partial" when not every case was selected."""
        return "partial" if self.partial else self.verdict().label

    def robustness_findings(self) -> list[CaseOutcome]:
        return [c for c in self.cases if c.level == "ROBUSTNESS" and c.outcome in ("warn", "fail")]

    def explanation(self) -> str:
        """The verdict in one sentence, as it applies to this run."""
        v = self.verdict()
        text = self._verdict_explanation(v)
        if self.partial:
            assert self.selection is not None
            return (
                f"{self.selection['selected']} of {self.selection['total']} cases "
                f"{'ran' if self.selection.get('stopped') else 'selected'} "
                f"({describe_selection(self.selection)}); no certificate. The selected cases: {v.label}, {text}"
            )
        return text

    def headline(self) -> str:
        """The verdict line: "CONFORMANT: …", or "PARTIAL: n of N cases selected; no certificate …"."""
        return f"{self.label().upper()}: {self.explanation()}"

    def unprepared(self) -> list[str]:
        """MUST cases not testable because the agent did not make what they need (a session)."""
        return [
            c.id
            for c in self.cases
            if c.level == "MUST" and c.outcome == "not-testable" and c.info.get("unprepared")
        ]

    def prompts_sent(self) -> int:
        """The prompts the run sent (each a model call for a real agent), over every worker."""
        return sum(int(c.info.get("prompts") or 0) for c in self.cases)

    def without_turn(self) -> list[str]:
        """The cases that were not testable because the prompt budget was spent (--max-prompts)."""
        return [c.id for c in self.cases if "--max-prompts" in c.message]

    def shown_errors(self) -> list[CaseOutcome]:
        """Cases that errored at a level that does not decide the verdict (shown, not deciding)."""
        return [
            c
            for c in self.cases
            if c.outcome == "error" and not decides_errors(Level(c.level), strict=self.strict)
        ]

    def _verdict_explanation(self, v: Verdict) -> str:
        """The verdict's sentence in the target's words: what it calls its system (an agent, a
        server, a service) and what it advertises."""
        if v is Verdict.UNIMPLEMENTED:
            text = v.explain(self.noun, self.capability or self.subject)
            if self.fatal:  # its handshake told it; what stopped the run after it does not change that
                text += f", as its handshake's answer says (then no case could run: {self.fatal.removeprefix('cannot certify: ')})"
            return text
        if v is Verdict.ERROR and self.fatal:
            return f"no case could run: {self.fatal}"
        unprepared = self.unprepared()
        if v is Verdict.UNTESTED and unprepared:
            return (
                f"no certificate: the {self.noun} did not make what {len(unprepared)} MUST case(s) need before they asked "
                f"status ({', '.join(unprepared[:3])}{', …' if len(unprepared) > 3 else ''}: a session it would not "
                "create, or not in time); not a failure of its status method, but nothing certifies it (see Coverage)"
            )
        if v is Verdict.NON_CONFORMANT:
            failed_levels = {c.level for c in self.cases if c.outcome == "fail"}
            if failed_levels <= {"SHOULD", "ROBUSTNESS"} and self.strict:
                return (
                    f"the {self.noun} breaks a SHOULD requirement or has a robustness finding, which count as "
                    "failures under --strict"
                )
        text = v.explain(self.noun, self.capability or self.subject)
        if v is Verdict.CONFORMANT:
            skipped = sum(c.outcome in ("not-testable", "unimplemented") for c in self.cases)
            if skipped:
                text += f"; {skipped} case(s) not testable or unimplemented (see Coverage)"
        errors = self.shown_errors()
        if errors and v in (Verdict.CONFORMANT, Verdict.NON_CONFORMANT, Verdict.UNTESTED):
            text += (
                f"; {len(errors)} {'/'.join(sorted({c.level for c in errors}))} case(s) errored "
                f"({', '.join(c.id for c in errors[:3])}{', …' if len(errors) > 3 else ''}), shown but not "
                "deciding the verdict"
            )
        robust = self.robustness_findings()
        if robust and not self.strict and v in (Verdict.CONFORMANT, Verdict.NON_CONFORMANT):
            text += (
                f"; {len(robust)} robustness finding(s) on frames the protocol never carries, shown but not "
                "deciding the verdict (--strict counts them)"
            )
        return text

    def gate(self) -> tuple[Verdict, str]:
        """What the run's exit code follows: the verdict, or with a baseline, only what is new.

        Known failures count as passes and stale entries as failures; the report's own
        verdict (``verdict()``) stays the honest one.
        """
        v = self.verdict()
        if self.baseline is None or self.incomplete or self.fatal:
            return v, self.headline()
        marks = {
            c.id: Outcome.PASS if c.baseline == "known" else Outcome.FAIL
            for c in self.cases
            if c.baseline in ("known", "stale")
        }
        gated = verdict(
            self._outcomes(marks),
            status_advertised=self.status_advertised,
            strict=self.strict,
            unprepared=bool(self.unprepared()),
        )
        b = self.baseline
        if not b.ok:
            why = []
            if b.new:
                why.append(f"new failure(s) not in the baseline: {', '.join(b.new)}")
            if b.stale:
                why.append(
                    f"stale baseline entries (these cases now pass; remove them): {', '.join(b.stale)}"
                )
            if b.strict and b.todo:
                why.append(f"entries whose reason still says TODO (--strict): {', '.join(b.todo)}")
            if gated is Verdict.CONFORMANT:
                gated = Verdict.NON_CONFORMANT
            return gated, f"{self.label()}, and the baseline gate fails: " + "; ".join(why)
        if v is gated:
            return gated, f"{self.headline()} ({b.explanation()})"
        return gated, f"{self.label()}, but every failure is a known one: {b.explanation()}"

    def counts(self) -> dict[str, Any]:
        by_outcome = dict.fromkeys(OUTCOME_ORDER, 0)
        by_level: dict[str, dict[str, int]] = {lv.value: dict.fromkeys(OUTCOME_ORDER, 0) for lv in Level}
        for c in self.cases:
            by_outcome[c.outcome] += 1
            by_level[c.level][c.outcome] += 1
        return {"total": len(self.cases), "by_outcome": by_outcome, "by_level": by_level}

    def to_json(self) -> dict[str, Any]:
        """report.json's body (schemas/report.schema.json): the one function that writes the
        records; :func:`conformance.reports.records.read_report` reads them back."""
        v = self.verdict()
        order = {"fail": 0, "error": 1, "warn": 2, "not-testable": 3, "info": 4}
        cases = [c.to_json() for c in sorted(self.cases, key=lambda c: (order.get(c.outcome, 9), c.id))]
        body = {
            "format": FORMAT,
            "suite": {"name": "session-status-conformance", "version": __version__},
            "target": self.target,
            "subject": self.subject,
            "spec": {
                "revision": self.revision,
                "title": revisions.get(self.revision).title,
                "why": self.revision_why,
                "sources": self._sources(),
                **self._wire_revisions(),
            },
            "wire": self.wire,
            "system": {
                "name": self.system.name,
                "version": self.system.version,
                "protocol": self.system.protocol,
                "capabilities": self.system.capabilities,
                "command": self.command,
                "transport": self.transport,
                "cwd": self.cwd,
            },
            "started": datetime.fromtimestamp(self.started, UTC).isoformat(timespec="seconds"),
            "duration": round(time.time() - self.started, 3),
            "options": {
                "strict": self.strict,
                "timeout": self.timeout,
                "turnTimeout": self.turn_timeout,
                "maxPrompts": self.max_prompts,
                "profile": self.profile,
                "seed": self.seed,
                **({"given": self.given} if self.given else {}),
            },
            **(
                {
                    "prompts": {
                        "sent": self.prompts_sent(),
                        "limit": self.max_prompts,
                        "notSent": self.without_turn(),
                    }
                }
                if self.takes_prompts
                else {}
            ),
            "verdict": {
                "label": self.label(),
                "exitCode": v.exit_code,
                "explanation": self.explanation(),
                **({"selected": v.label} if self.partial else {}),
            },
            "selection": self.selection,
            "baseline": self._baseline_json(),
            "counts": self.counts(),
            "notes": self.notes,
            "incomplete": self.incomplete,
            "fatal": self.fatal,
            "processGroups": self.process_groups,
            "traceability": self._traceability(cases),
            "cases": cases,
        }
        if self.system.own:  # the target's own view of its system, under its name (ACP: agentInfo…)
            body[self.target if self.target not in body else f"{self.target}Target"] = self.system.own
        return body

    def _wire_revisions(self) -> dict[str, Any]:
        """The wire revisions the spec revision's cases have been checked over (its file says)."""
        try:
            checked = revisions.get(self.revision).wire_revisions
        except (KeyError, FileNotFoundError, ModuleNotFoundError):
            return {}
        return {"wireRevisions": list(checked)} if checked else {}

    def _traceability(self, cases: list[dict[str, Any]]) -> dict[str, Any] | None:
        try:
            revision = revisions.get(self.revision)
        except (KeyError, FileNotFoundError, ModuleNotFoundError):  # a suite without the revision files
            return None
        return coverage(revision, cases)

    def _baseline_json(self) -> dict[str, Any] | None:
        if self.baseline is None:
            return None
        gated, explanation = self.gate()
        return {**self.baseline.to_json(), "exitCode": gated.exit_code, "explanation": explanation}

    def write(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "report.json"
        tmp = path.with_suffix(".tmp")
        body = redact(jsonable(self.to_json()), self.secrets)
        self.written = body
        tmp.write_text(json.dumps(body, indent=2, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
        (directory / "report.html").write_text(html_report(body), encoding="utf-8")
        (directory / "summary.md").write_text(markdown_summary(body), encoding="utf-8")
        (directory / "badge.svg").write_text(badge_svg(body), encoding="utf-8")
        return path

    def cost_line(self) -> str:
        """What the run cost: its prompts (model calls, for a real agent) and its wall time."""
        wall = f"wall time: {time.time() - self.started:.0f} s"
        if not self.takes_prompts:  # its system takes no turns that cost model calls
            return wall
        sent = self.prompts_sent()
        limit = f" of at most {self.max_prompts} (--max-prompts)" if self.max_prompts is not None else ""
        refused = self.without_turn()
        more = f"; {len(refused)} case(s) not testable for want of one" if refused else ""
        why = prompts_why(
            [(int(c.info.get("prompts") or 0), c.id) for c in self.cases], self.max_prompts is not None
        )
        return f"prompts: {sent}{limit} sent (each a model call for a real agent{why}){more}    {wall}"

    def summary_lines(self) -> list[str]:
        label = self.system.label() or self.noun
        counts = self.counts()
        cols = [o for o in OUTCOME_ORDER]
        lines = [
            clean(f"{self.subject} conformance: {label} — {shlex.join(self.command)}"),
            f"spec revision: {self.revision} ({self.revision_why})",
            *([clean(f"wire: {wire_text(self.wire)}")] if self.wire else []),
            f"profile: {self.profile}    seed: {self.seed} (rerun with --seed {self.seed})",
            self.cost_line(),
            "level      " + " ".join(f"{c:>13}" for c in cols),
        ]
        for lv, row in counts["by_level"].items():
            lines.append(f"{lv:<10} " + " ".join(f"{row[c]:>13}" for c in cols))
        lines.append("total      " + " ".join(f"{counts['by_outcome'][c]:>13}" for c in cols))
        v = self.verdict()
        if self.baseline is None:
            lines.append(f"verdict: {self.headline()} (exit {v.exit_code})")
        else:  # the exit code is the gate's: saying the verdict's here would contradict it
            lines.append(
                f"verdict: {self.headline()} (the report's verdict; the baseline gate decides the exit)"
            )
        for c in self.robustness_findings():
            lines.append(clean(f"robustness finding: {c.id}: {shorten(c.message, 300)}"))
            if c.reproduce:
                lines.append(f"  reproduce: {c.reproduce}")
        uncovered = [c for c in self.cases if c.outcome in ("not-testable", "unimplemented", "n/a")]
        watched = watched_text(self.cases)
        if watched:
            lines.append(clean(f"Coverage: {watched}"))
        if uncovered:
            width = max(60, min(shutil.get_terminal_size((100, 24)).columns, 160))
            lines.append("Coverage: cases that ran to no verdict, why, and what to pass to test them:")
            for c in uncovered:
                why = shorten(c.message, 1200)
                said = c.outcome.replace("-", " ") + ": "
                why = why[len(said) :] if why.startswith(said) else why
                text = clean(f"{c.id} ({c.outcome}): {why}")
                lines += textwrap.wrap(
                    text, width, initial_indent="  ", subsequent_indent="      ", break_long_words=False
                )
        if self.baseline is not None:
            gated, explanation = self.gate()
            b = self.baseline
            state = "pass" if b.ok and gated.exit_code == 0 else "fail"
            lines.append(
                f"{len(b.known)} known failure(s) (baseline); gate: {state} (exit {gated.exit_code}) — {explanation}"
            )
            for case_id in b.stale:
                lines.append(
                    f"stale baseline entry: {case_id} passes now; remove it from {b.path} (or rerun with "
                    "--update-expected-failures)"
                )
            for case_id in b.todo:
                lines.append(
                    f"warning: {b.path}: {case_id}'s reason still says TODO: say why this failure is expected"
                    + (" (fails the gate under --strict)" if not b.strict else "")
                )
        lines.extend(clean(note) for note in self.notes)
        return lines

"""A campaign's results: each mutant's fate, the triage of survivors, the score and the report.

Pure functions on plain data, so they are tested without running a campaign.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FATES = ("killed", "survived", "timeout", "incompetent", "skipped", "pending")
# equivalent: no client can observe the change. conforming: a client can, but the spec allows what
# the mutant does (a MAY, an open enum): the mutated reference still conforms, so a case that
# killed it would call a conforming agent non-conformant. Neither counts in the score.
# robustness: a client can observe it only through frames the protocol never carries; the named
# ROBUSTNESS case reports it, which by the suite's rule never decides the verdict, so no verdict
# can kill it (--strict would).
# caught: it survived a campaign, and the named case now kills it.
KINDS = ("equivalent", "conforming", "robustness", "caught")
UNSCORED = ("equivalent", "conforming", "robustness")
NEEDS_CASE = ("robustness", "caught")


@dataclass(frozen=True)
class Mutant:
    id: str  # module:line:column:operator:occurrence, stable while the line does not move
    module: str
    line: int
    operator: str
    fate: str
    diff: str = ""
    output: str = ""  # what the test command printed: a survivor's verdict lines and what its runs noticed


def mutant_id(module: str, start: tuple[int, int], operator: str, occurrence: int) -> str:
    return f"{module}:{start[0]}:{start[1]}:{operator.removeprefix('core/')}:{occurrence}"


def fate_of(worker_outcome: str | None, test_outcome: str | None, output: str | None) -> str:
    """Cosmic Ray counts a test command that outran its timeout as killed; a hang is not a catch."""
    if worker_outcome is None:
        return "pending"
    if worker_outcome == "skipped":
        return "skipped"
    if worker_outcome != "normal":
        return "incompetent"  # the mutation itself failed (the worker raised or crashed)
    if test_outcome == "killed":
        return "timeout" if (output or "").strip() == "timeout" else "killed"
    if test_outcome == "survived":
        return "survived"
    return "incompetent"


class TriageError(ValueError):
    """A triage file that cannot be trusted: reported as one line, exit code 2."""


@dataclass(frozen=True)
class Verdict:
    kind: str  # one of KINDS
    reason: str = ""
    case: str = ""


def load_triage(path: Path, known_cases: set[str]) -> dict[str, Verdict]:
    """`[[survivor]]` entries: id, kind = "equivalent" or "conforming" with a one-line reason (for
    conforming: the spec sentence that allows it), or kind = "caught" with the case id that now
    kills it. An unknown case id, kind or duplicate id is an error."""
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise TriageError(f"{path.name}: not TOML ({exc})") from exc
    found: dict[str, Verdict] = {}
    for number, entry in enumerate(data.get("survivor", []), 1):
        where = f"{path.name}, survivor {number}"
        mutant = entry.get("id")
        kind = entry.get("kind")
        if not isinstance(mutant, str) or not mutant:
            raise TriageError(f"{where}: no id")
        if mutant in found:
            raise TriageError(f"{where}: {mutant} is triaged twice")
        if kind not in KINDS:
            raise TriageError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
        if kind == "equivalent" and not str(entry.get("reason", "")).strip():
            raise TriageError(f"{where}: an equivalent mutant needs a reason (why no client can observe it)")
        if kind == "conforming" and not str(entry.get("reason", "")).strip():
            raise TriageError(
                f"{where}: a conforming mutant needs a reason (the spec sentence that allows it)"
            )
        if kind in NEEDS_CASE:
            case = entry.get("case")
            if case not in known_cases:
                raise TriageError(f"{where}: case {case!r} is not a case of the suite")
        found[mutant] = Verdict(kind, str(entry.get("reason", "")), str(entry.get("case", "")))
    return found


@dataclass(frozen=True)
class Score:
    counts: dict[str, int]
    unscored: int  # survivors triaged equivalent, conforming or robustness
    gaps: list[str]  # survivors not triaged
    broken_promises: list[str]  # triaged "caught" but survived in this campaign

    @property
    def scored(self) -> int:
        """Mutants that count: run to a verdict, minus the ones no verdict may kill (UNSCORED)."""
        return self.counts["killed"] + self.counts["survived"] + self.counts["timeout"] - self.unscored

    @property
    def value(self) -> float | None:
        return self.counts["killed"] / self.scored if self.scored else None


def score(mutants: list[Mutant], triage: dict[str, Verdict]) -> Score:
    counts = Counter({fate: 0 for fate in FATES})
    counts.update(m.fate for m in mutants)
    survivors = [m for m in mutants if m.fate == "survived"]
    unscored = sum(1 for m in survivors if triage.get(m.id, Verdict("")).kind in UNSCORED)
    gaps = [m.id for m in survivors if m.id not in triage]
    broken = [m.id for m in survivors if triage.get(m.id, Verdict("")).kind == "caught"]
    return Score(dict(counts), unscored, gaps, broken)


def markdown(target: str, mutants: list[Mutant], triage: dict[str, Verdict], measured: dict[str, Any]) -> str:
    result = score(mutants, triage)
    value = "n/a" if result.value is None else f"{result.value:.1%}"
    lines = [
        f"# Mutation score: {target}",
        "",
        f"Measured {measured.get('date', '?')} at commit {measured.get('commit', '?')}"
        + (f", a sample of {measured['sample']}" if measured.get("sample") else "")
        + "."
        + (
            f" {measured['rechecked']} survivor(s) triaged as caught were judged again after the campaign, "
            "each on its own mutated copy, and killed by the case added since: counted as killed."
            if measured.get("rechecked")
            else ""
        ),
        "",
        f"**Score: {value}** = killed {result.counts['killed']} ÷ (killed + survived + timed out "
        f"{result.counts['killed'] + result.counts['survived'] + result.counts['timeout']} − equivalent, "
        f"conforming or robustness-only {result.unscored})",
        "",
        "| fate | mutants |",
        "| --- | --- |",
        *(f"| {fate} | {result.counts[fate]} |" for fate in FATES),
        "",
    ]
    if result.gaps:
        lines += [
            f"**{len(result.gaps)} untriaged survivor(s)**: each is a gap until it is marked equivalent "
            f"(no client can observe it), conforming (the spec allows what it does), robustness (only a "
            f"robustness case sees it) or caught (a case now kills it) in mutation/{target}-triage.toml.",
            "",
        ]
    if result.broken_promises:
        lines += [f"**Triaged as caught but survived**: {', '.join(result.broken_promises)}", ""]
    survivors = [m for m in mutants if m.fate in ("survived", "timeout")]
    if survivors:
        lines += ["## Survivors and timeouts", ""]
    for m in survivors:
        verdict = triage.get(m.id)
        said = (
            "untriaged"
            if verdict is None
            else f"robustness, reported by {verdict.case}: {verdict.reason}"
            if verdict.kind == "robustness"
            else f"{verdict.kind}: {verdict.reason}"
            if verdict.kind in UNSCORED
            else f"caught by {verdict.case}"
        )
        lines += [f"### `{m.id}` ({m.fate}; {said})", "", "```diff", m.diff.strip(), "```", ""]
        if m.output.strip():
            lines += ["The suite's runs:", "", "```", m.output.strip()[-2000:], "```", ""]
    return "\n".join(lines)

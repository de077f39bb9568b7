"""A campaign's findings: each failing case of a round's report, deduplicated by a fingerprint.

Two failures are the same finding when they break the same rule of the same case with a minimal
reproduction of the same shape: the operations of its steps in order, with session names
numbered by first use (s0, s1…), so the same bug found on other sessions or at another seed is
one finding; for a fuzz case, the kind of input that broke it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["FINDING_OUTCOMES", "Finding", "Findings", "fingerprint", "shape"]

# Outcomes that make a finding: a MUST broken, a SHOULD broken (it counts under --strict), and a
# case that crashed (an agent that died mid-case is a finding; the next round starts it again).
FINDING_OUTCOMES = ("fail", "warn", "error")
_REF = re.compile(r"^[su]\d+$")


def shape(case: dict[str, Any]) -> list[str]:
    """The shape of a failing case's minimal reproduction (see the module's docstring)."""
    details = found if isinstance(found := case.get("details"), dict) else {}
    steps = details.get("steps")
    if isinstance(steps, list) and steps:
        names: dict[str, str] = {}
        shaped = []
        for step in steps:
            if not isinstance(step, dict):
                continue
            op = str(step.get("op", "?"))
            ref = step.get("ref")
            if isinstance(ref, str) and _REF.match(ref):
                ref = names.setdefault(ref, f"{ref[0]}{sum(1 for r in names if r[0] == ref[0])}")
            extra = "+meta" if step.get("meta") else ""
            count = f"×{step['count']}" if step.get("count") else ""
            shaped.append(f"{op}({ref or ''}){extra}{count}")
        return shaped
    fuzzed = details.get("input")
    if isinstance(fuzzed, str):
        # The kind of input, not its bytes: its first word (a frame kind, a params shape).
        return [fuzzed.split(":", 1)[0].split(" ", 1)[0][:60]]
    return []


def fingerprint(case: dict[str, Any]) -> str:
    """The case, the rule broken, and the shape of the minimal reproduction."""
    key = json.dumps([case.get("id"), case.get("rule"), shape(case)])
    return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass
class Finding:
    fingerprint: str
    case_id: str
    level: str
    outcome: str
    rule: str | None
    sentence: str
    message: str
    shape: list[str]
    reproduction: list[str]  # the minimal sequence, numbered, or the shrunk input
    seed: int | None
    first_seen: float  # seconds into the campaign
    worker: int
    report: str  # the round report it was first seen in
    replay_file: str | None = None
    seen: int = 1
    confirmed: str = "unconfirmed"  # reproduced | flaky | unconfirmed
    confirmation: str = ""
    workers: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Findings:
    """Distinct findings, in the order they were first seen."""

    def __init__(self) -> None:
        self.by_print: dict[str, Finding] = {}

    def __len__(self) -> int:
        return len(self.by_print)

    def __iter__(self):
        return iter(self.by_print.values())

    def add_report(self, report: dict[str, Any], *, at: float, worker: int, path: str) -> list[Finding]:
        """The round report's failing cases; the new findings among them."""
        new = []
        for case in report.get("cases") or []:
            if not isinstance(case, dict) or case.get("outcome") not in FINDING_OUTCOMES:
                continue
            if str(case.get("message", "")).startswith("not finished: the run was interrupted"):
                continue  # a round cut short at the campaign's end found nothing
            print_ = fingerprint(case)
            known = self.by_print.get(print_)
            if known is not None:
                known.seen += 1
                if worker not in known.workers:
                    known.workers.append(worker)
                continue
            details = found if isinstance(found := case.get("details"), dict) else {}
            spec = found if isinstance(found := case.get("spec"), dict) else {}
            sequence = details.get("sequence")
            reproduction = (
                [str(s) for s in sequence]
                if isinstance(sequence, list)
                else [str(details["input"])]
                if "input" in details
                else []
            )
            finding = Finding(
                fingerprint=print_,
                case_id=str(case.get("id")),
                level=str(case.get("level")),
                outcome=str(case.get("outcome")),
                rule=case.get("rule"),
                sentence=str(spec.get("sentence", "")),
                message=str(case.get("message", ""))[:2000],
                shape=shape(case),
                reproduction=reproduction[:200],
                seed=details.get("seed") if isinstance(details.get("seed"), int) else None,
                first_seen=round(at, 2),
                worker=worker,
                report=path,
                replay_file=details.get("replay_file")
                if isinstance(details.get("replay_file"), str)
                else None,
                workers=[worker],
            )
            self.by_print[print_] = finding
            new.append(finding)
        return new

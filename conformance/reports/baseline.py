"""Baselines of known failures (``--expected-failures FILE``), so CI fails only on new ones.

The file lists case ids, each with the reason it is expected to fail (TOML or YAML)::

    [[expected-failures]]
    id = "status.error.unknown-session-data"
    reason = "error data lands with the 0.4 SDK upgrade (#123)"

A listed case that fails is *known*: it does not fail the run (pytest shows it as xfailed).
A failure not listed is *new* and fails the run; a listed case that now passes is *stale*
and fails the run too, so the file shrinks as the agent gets fixed. A SHOULD that is broken
(warn) is a failure only under ``--strict``. The report's own verdict stays the honest
one; only the run's exit code follows the baseline.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from conformance.core.config import UsageError
from conformance.core.registry import SLUG
from conformance.reports.records import CaseOutcome

__all__ = [
    "Baseline",
    "BaselineResult",
    "did_you_mean",
    "failing",
    "is_todo",
    "load_baseline",
    "short_reason",
    "write_baseline",
]

KEY = "expected-failures"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def failing(outcome: str, strict: bool) -> bool:
    return outcome in ("fail", "error") or (strict and outcome == "warn")


@dataclass
class Baseline:
    path: Path
    entries: dict[str, str] = field(default_factory=dict)  # case id -> reason

    def classify(self, case_id: str, outcome: str, strict: bool) -> str | None:
        """'known', 'stale', 'new' or None (nothing to say)."""
        listed = case_id in self.entries
        if failing(outcome, strict):
            return "known" if listed else "new"
        if listed and outcome in ("pass", "info"):
            return "stale"
        return None


@dataclass
class BaselineResult:
    path: str
    known: list[str]
    new: list[str]
    stale: list[str]
    todo: list[str] = field(default_factory=list)  # entries whose reason still says TODO
    strict: bool = False  # under --strict a TODO reason fails the gate

    @property
    def ok(self) -> bool:
        return not self.new and not self.stale and not (self.strict and self.todo)

    def explanation(self) -> str:
        parts = [f"{len(self.known)} known failure(s)", f"{len(self.new)} new", f"{len(self.stale)} stale"]
        if self.todo:
            parts.append(f"{len(self.todo)} reason(s) still TODO")
        return f"baseline {self.path}: " + ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.path,
            "known": self.known,
            "new": self.new,
            "stale": self.stale,
            "todo": self.todo,
            "ok": self.ok,
        }


def is_todo(reason: str) -> bool:
    return reason.strip().upper().startswith("TODO")


def short_reason(message: str, limit: int = 120) -> str:
    """The first clause of a case's message, whole, or cut at a word with an ellipsis."""
    text = _CONTROL.sub(" ", message).strip()
    first = re.split(r"(?<=[.;:])\s", text, maxsplit=1)[0].rstrip(".;:")
    if len(first) <= limit:
        return first
    return first[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " …"


def load_baseline(path: Path, known_ids: set[str] | None = None) -> Baseline:
    """Read a baseline file; a malformed file or an unknown case id is a usage error."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--expected-failures {str(path)!r} cannot be read: {exc.strerror}") from None
    try:
        data = yaml.safe_load(text) if path.suffix in (".yaml", ".yml") else tomllib.loads(text)
    except (yaml.YAMLError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"--expected-failures {str(path)!r} is not valid {_kind(path)}: {exc}") from None
    data = data or {}
    entries = data.get(KEY, []) if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise UsageError(
            f"--expected-failures {str(path)!r}: expected a list under {KEY!r}, each with id and reason"
        )
    baseline = Baseline(path)
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise UsageError(f"{path}: entry {number} has no id")
        case_id, reason = entry["id"], entry.get("reason")
        if not SLUG.match(case_id):
            raise UsageError(f"{path}: entry {number}: {case_id!r} is not a case id")
        if not isinstance(reason, str) or not reason.strip():
            raise UsageError(f"{path}: {case_id} has no reason; say why this failure is expected")
        if known_ids is not None and case_id not in known_ids:
            raise UsageError(
                f"{path}: {case_id} is not a case of this suite{did_you_mean(case_id, known_ids)}"
            )
        if case_id in baseline.entries:
            raise UsageError(f"{path}: {case_id} is listed twice")
        baseline.entries[case_id] = reason.strip()
    return baseline


def did_you_mean(case_id: str, known_ids: set[str]) -> str:
    close = difflib.get_close_matches(case_id, sorted(known_ids), n=3, cutoff=0.85)
    return f" (did you mean {' or '.join(close)}?)" if close else " (renamed or mistyped?)"


def _kind(path: Path) -> str:
    return "YAML" if path.suffix in (".yaml", ".yml") else "TOML"


def write_baseline(
    path: Path, cases: list[CaseOutcome], strict: bool, old: Baseline | None
) -> tuple[int, int]:
    """Write the failures of this run as the new baseline; returns (added, removed).

    Reasons of entries already in the file are kept; entries for cases that did not run
    (deselected) are kept; entries for cases that now pass are dropped.
    """
    old_entries = dict(old.entries) if old else {}
    ran = {c.id: c for c in cases}
    entries: dict[str, str] = {}
    for case_id, reason in old_entries.items():
        if case_id not in ran or failing(ran[case_id].outcome, strict):
            entries[case_id] = reason
    for case_id, case in sorted(ran.items()):
        if failing(case.outcome, strict) and case_id not in entries:
            seen = datetime.now(UTC).strftime("%Y-%m-%d")
            entries[case_id] = (
                f"TODO: say why this is expected (first seen {seen}, {case.outcome}: {short_reason(case.message)})"
            )
    added = len(set(entries) - set(old_entries))
    removed = len(set(old_entries) - set(entries))
    items = [{"id": k, "reason": v} for k, v in sorted(entries.items())]
    header = (
        "# Known failures for session-status-conformance (--expected-failures).\n"
        "# Listed failures do not fail the run; new ones do, and so does an entry whose case now passes.\n"
    )
    if path.suffix in (".yaml", ".yml"):
        body = header + yaml.safe_dump({KEY: items}, sort_keys=False, allow_unicode=True, width=1000)
    else:
        body = header + "".join(
            f"\n[[{KEY}]]\nid = {json.dumps(i['id'])}\nreason = {json.dumps(i['reason'], ensure_ascii=False)}\n"
            for i in items
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(body, encoding="utf-8")
    os.replace(tmp, path)
    return added, removed

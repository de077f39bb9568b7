"""The typed records of a run: the system under test as its target describes it, each case's
outcome, and how they are written to report.json and read back.

report.json is written by one function (:meth:`conformance.reports.report.RunReport.to_json`,
from these records) and read by one (:func:`read_report`), which also reads the older format,
whose ``agent`` block named every system an agent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "FORMAT",
    "FORMATS",
    "CaseOutcome",
    "ReportError",
    "SpecRef",
    "System",
    "as_object",
    "read_report",
    "system_label",
]

FORMAT = "session-status-conformance/report@2"
OLD_FORMAT = "session-status-conformance/report@1"  # `agent` for every target's system
FORMATS = (FORMAT, OLD_FORMAT)


@dataclass(frozen=True)
class System:
    """The system under test as its target describes it (``Target.describe``), everything in it
    as the system said it (untrusted, bounded by the target): its name and version, the protocol
    version or revision it spoke, what it advertised, and the target's own view of it (``own``:
    ACP's initialize fields, kept under the target's name in report.json)."""

    name: str = ""
    version: str = ""
    protocol: str = ""  # the protocol version or revision, as the target names it ("2", "2025-06-18")
    capabilities: Any = None
    own: dict[str, Any] = field(default_factory=dict)

    def label(self) -> str:
        """ "name version", or "" when the system gave no name."""
        return f"{self.name} {self.version}".strip() if self.name else ""


@dataclass(frozen=True)
class SpecRef:
    """The sentence a case checks, where it is written."""

    source: str
    section: str
    sentence: str
    url: str = ""

    def to_json(self) -> dict[str, str]:
        return {"source": self.source, "section": self.section, "sentence": self.sentence, "url": self.url}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SpecRef:
        return cls(
            str(data.get("source") or ""),
            str(data.get("section") or ""),
            str(data.get("sentence") or ""),
            str(data.get("url") or ""),
        )


# Members a case's entry always has, and those it has only when set (None: absent).
_OPTIONAL = ("rule", "details", "reproduce", "nodeid", "baseline")


@dataclass
class CaseOutcome:
    """One case's entry in report.json: what it checks, its outcome and what it saw (everything
    from the system already redacted and made JSON)."""

    id: str
    title: str
    level: str  # a registry Level's value: MUST, SHOULD, MAY, ROBUSTNESS
    area: str
    needs: list[str]
    spec: SpecRef
    outcome: str  # an Outcome's value
    message: str
    duration: float = 0.0
    expected: Any = None
    observed: Any = None
    transcript: list[dict[str, Any]] = field(default_factory=list)
    stderr: str = ""
    reproduction: list[dict[str, Any]] = field(default_factory=list)
    rule: str | None = None  # the rule of the case that found it (a sequence or fuzz case)
    details: dict[str, Any] | None = None  # None: the harness failed before the case made a record
    reproduce: str | None = None  # a failure's one command that reproduces it
    nodeid: str | None = None  # pytest's id of the item that ran it
    baseline: str | None = None  # what --expected-failures made of it: known, new, stale

    @property
    def info(self) -> dict[str, Any]:
        """Its details ({} when it has none)."""
        return self.details or {}

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "level": self.level,
            "area": self.area,
            "needs": list(self.needs),
            "spec": self.spec.to_json(),
            "outcome": self.outcome,
            "message": self.message,
        }
        if self.details is not None:
            entry |= {"expected": self.expected, "observed": self.observed}
        if self.rule is not None:
            entry["rule"] = self.rule
        entry |= {
            "duration": self.duration,
            "transcript": self.transcript,
            "stderr": self.stderr,
            "reproduction": self.reproduction,
        }
        optional = {
            "details": self.details,
            "reproduce": self.reproduce,
            "nodeid": self.nodeid,
            "baseline": self.baseline,
        }
        return entry | {k: v for k, v in optional.items() if v is not None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CaseOutcome:
        """An entry as report.json (or a pytest report crossing from an xdist worker) holds it."""
        return cls(
            id=str(data["id"]),
            title=str(data.get("title") or ""),
            level=str(data["level"]),
            area=str(data.get("area") or ""),
            needs=[str(n) for n in data.get("needs") or []],
            spec=SpecRef.from_json(data.get("spec") or {}),
            outcome=str(data["outcome"]),
            message=str(data.get("message") or ""),
            duration=float(data.get("duration") or 0.0),
            expected=data.get("expected"),
            observed=data.get("observed"),
            transcript=list(data.get("transcript") or []),
            stderr=str(data.get("stderr") or ""),
            reproduction=list(data.get("reproduction") or []),
            **{name: data.get(name) for name in _OPTIONAL},
        )


class ReportError(Exception):
    """A file that is not a report.json this suite can read, in one line."""


def read_report(path: Path) -> dict[str, Any]:
    """A report.json as the current format has it: an older report's ``agent`` block is read as
    its ``system`` (and, for ACP, its own block). Raises ReportError, one line, for a file that is
    not one (or is of a format newer than this suite)."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReportError(f"{path}: cannot read a report ({exc})") from None
    return upgraded(report, path)


def upgraded(report: Any, where: Path | str = "report.json") -> dict[str, Any]:
    """A parsed report in the current format (see :func:`read_report`)."""
    if not isinstance(report, dict) or report.get("format") not in FORMATS:
        said = report.get("format") if isinstance(report, dict) else None
        if isinstance(said, str) and said.startswith("session-status-conformance/report@"):
            raise ReportError(
                f"{where}: a report of the format {said[:60]!r}, which this suite does not read (it reads "
                f"{', '.join(FORMATS)})"
            )
        raise ReportError(f"{where}: not a session-status-conformance report.json")
    if report["format"] == FORMAT:
        return report
    agent = as_object(report.get("agent"))
    # The first reports of this format, before the suite had other targets, name none: ACP's.
    target = str(report.get("target") or "acp")
    subject = str(report.get("subject") or "")
    if target == "acp" and subject in ("", "session/status"):
        subject = "ACP session/status"
    info = as_object(agent.get("agentInfo"))
    version = agent.get("protocolVersion")
    old = {k: agent.get(k) for k in ("agentInfo", "protocolVersion", "agentCapabilities")}
    return {
        **{k: v for k, v in report.items() if k != "agent"},
        "format": FORMAT,
        "target": target,
        "subject": subject or "session/status",
        "upgradedFrom": OLD_FORMAT,
        "system": {
            "name": str(info.get("name") or "")[:100],
            "version": str(info.get("version") or "")[:40],
            "protocol": "" if version is None else str(version)[:40],
            "capabilities": agent.get("agentCapabilities"),
            "command": list(agent.get("command") or []),
            "transport": agent.get("transport") or "stdio",
            "cwd": str(agent.get("cwd") or ""),
        },
        **({target: old} if target == "acp" else {}),
    }


def as_object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def system_label(report: dict[str, Any]) -> str:
    """The system's own name and version from a report (current format), or "" without one."""
    system = as_object(report.get("system"))
    name = system.get("name")
    if not isinstance(name, str) or not name:
        return ""
    return f"{name} {system.get('version') or ''}".strip()[:100]

"""Cases as pytest items: one item per registered case, named by its id."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from conformance.core import revisions
from conformance.core.outcomes import Outcome
from conformance.core.registry import CASES, Case
from conformance.core.traceability import case_packages
from conformance.core.transcript import reproduction_lines
from conformance.pytest.keys import AGENT, REPORT_DIR, REVISION, RUN
from conformance.reports.records import CaseOutcome
from conformance.runtime import CaseRecord

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

__all__ = ["CaseBroken", "CaseFailed", "CaseItem", "CaseModule", "import_case_module", "is_case_file"]

SEVERITY = {"MUST": "critical", "SHOULD": "normal", "MAY": "minor", "ROBUSTNESS": "trivial"}
SKIPPING = (Outcome.UNIMPLEMENTED, Outcome.NOT_APPLICABLE, Outcome.NOT_TESTABLE)


def is_case_file(path: Path) -> bool:
    in_cases = "cases" in (path.parent.name, path.parent.parent.name)  # cases/ or cases/<target>/
    if path.suffix != ".py" or path.name.startswith("_") or not in_cases:
        return False
    try:
        return "@case(" in path.read_text(encoding="utf-8")
    except OSError:
        return False


def import_case_module(path: Path, target: str | None) -> str:
    """Import a case module once, under the package name it has when installed. A case folder of
    the user's own names its target (cases/mcp/x.py); a flat one (cases/x.py) holds cases of
    ``target``, the one the run certifies."""
    package_dir = path.parent
    for package, folder in case_packages().items():  # the suite's own cases, and other targets'
        if path.resolve().is_relative_to(folder.resolve()):
            parts = path.resolve().relative_to(folder.resolve()).with_suffix("").parts
            name = ".".join((package, *parts))
            importlib.import_module(name)
            return name
    folder = target if package_dir.name == "cases" and target is not None else package_dir.name
    name = f"conformance_cases_{zlib.crc32(str(package_dir).encode()):08x}.{folder}.{path.stem}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return name


class CaseModule(pytest.File):
    def collect(self):
        agent = self.config.stash.get(AGENT, None)
        target = agent.target if agent is not None else None  # a run certifies one system
        module = import_case_module(self.path, target)
        for case in [c for c in CASES.values() if c.module == module and target in (None, c.target)]:
            yield CaseItem.from_parent(self, name=case.id, case=case)


class CaseFailed(AssertionError):
    """The agent broke the spec. An AssertionError, so Allure files it as *failed*."""

    def __init__(self, record: CaseRecord) -> None:
        super().__init__(record.result.message)
        self.record = record


class CaseBroken(Exception):
    """The harness or the agent crashed: not a verdict on the spec. Allure files it as *broken*."""

    def __init__(self, record: CaseRecord) -> None:
        super().__init__(record.result.message)
        self.record = record


class CaseItem(pytest.Item):
    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.record: CaseRecord | None = None
        self.entry: CaseOutcome | None = None  # its entry of report.json, once it ran
        self.add_marker(case.level.marker)
        self.add_marker(case.level.value)  # MUST as well as must: reports print levels in capitals
        self.add_marker("conformance")
        if case.slow:
            self.add_marker("slow")
        # Allure labels (read by allure-pytest from these marks when --alluredir is given).
        self.add_marker(pytest.mark.allure_label(SEVERITY[case.level.value], label_type="severity"))
        self.add_marker(pytest.mark.allure_label(case.area, label_type="epic"))
        revision = self.config.stash.get(REVISION, None) or revisions.default(case.target)
        self.add_marker(pytest.mark.allure_label(revision, label_type="tag"))
        spec = revisions.spec_of(case, revision=revision)
        self.add_marker(pytest.mark.allure_label(spec.section, label_type="feature"))
        if spec.url:
            name = f"{spec.source} · {spec.section}"
            self.add_marker(pytest.mark.allure_link(spec.url, link_type="link", name=name))
        self.user_properties.extend(
            [("case_id", case.id), ("level", case.level.value), ("spec", spec.sentence)]
        )

    def runtest(self) -> None:
        # The engine's case step: the agent started once, at session start (an xdist worker
        # starts its own with its first case).
        self.record, self.entry = self.config.stash[RUN].run_case(self.case)
        _attach_to_allure(self.record)
        outcome = self.record.result.outcome
        if outcome is Outcome.FAIL:
            raise CaseFailed(self.record)
        if outcome is Outcome.ERROR:
            raise CaseBroken(self.record)
        if outcome in SKIPPING:
            message = self.record.result.message
            pytest.skip(
                message
                if message.startswith(outcome.value.replace("-", " "))
                else f"{outcome.value}: {message}"
            )

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.case.id} [{self.case.level.value}]"

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, CaseFailed | CaseBroken):
            from conformance.reports.report import reproduce_command

            record = excinfo.value.record
            report_dir = self.config.stash.get(REPORT_DIR, None)
            command = reproduce_command(self.case.id, record.details, report_dir)
            return render_failure(self.case, record, command=command)
        return super().repr_failure(excinfo)


def render_failure(case: Case, record: CaseRecord, max_frames: int = 40, command: str | None = None) -> str:
    """A failure as the terminal shows it. What a person copies (the reproduce command, the lines
    to pipe) is printed whole; an observed value is bounded, a frame of the transcript too."""
    from conformance.reports.report import clean

    r = record.result
    spec = revisions.spec_of(case, r.rule, r.spec_key, revision=record.revision or None)
    lines = [
        f"{case.id} [{case.level.value}] -> {r.outcome.value.upper()}",
        f"  {r.message}",
        f"  spec ({spec.source}, {spec.section}): {spec.sentence}",
    ]
    if r.expected is not None:
        lines.append(f"  expected: {_indented(_short(r.expected))}")
    if r.observed is not None:
        lines.append(f"  observed: {_indented(_short(r.observed))}")
    frames = shown_frames(record.transcript, record.details.get("offending_frames") or [], max_frames)
    if frames:
        lines.append(f"  transcript ({len(frames)} of {len(record.transcript)} frames):")
        arrows = {"send": "-->", "recv": "<--", "note": " ! "}
        previous = None
        for f in frames:
            if previous is not None and f["index"] > previous + 1:
                lines.append("    …")
            lines.append(f"    {f['t']:9.4f} {arrows.get(f['dir'], '   ')} {f['frame'][:300]}")
            previous = f["index"]
    if record.stderr.strip():
        lines.append("  agent stderr (tail):")
        lines.extend("    " + ln for ln in record.stderr.strip().splitlines()[-15:])
    if command:
        lines.append(f"  reproduce: {command}")
    piped = reproduction_lines(record.reproduction, max_lines=30)
    if piped:
        lines.append("  or send these lines yourself:" if command else "  reproduce:")
        lines.extend("    " + ln for ln in piped)
    return clean("\n".join(lines))


def _indented(text: str) -> str:
    """A value over several lines, its later lines under the first."""
    return text.replace("\n", "\n            ")


def shown_frames(transcript: list[dict[str, Any]], offending: list[int], window: int) -> list[dict[str, Any]]:
    """The last ``window`` frames, plus each offending frame and the note the harness wrote after
    it, wherever they are: a failure always shows the frame it names."""
    keep = {f["index"] for f in transcript[-window:]}
    for index in offending:
        keep |= {index, index + 1}
    return [f for f in transcript if f.get("index") in keep]


def _attach_to_allure(record: CaseRecord) -> None:
    try:
        import allure
    except ImportError:  # pragma: no cover - allure-pytest is a dependency
        return
    if record.transcript:
        body = "\n".join(json.dumps(f, ensure_ascii=False) for f in record.transcript)
        allure.attach(body, name="wire transcript (ndjson)", attachment_type=allure.attachment_type.TEXT)
    if record.reproduction:
        allure.attach(
            "\n".join(reproduction_lines(record.reproduction)),
            name="reproduction",
            attachment_type=allure.attachment_type.TEXT,
        )


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    from conformance.reports.report import shorten

    return shorten(text, 500)

"""The engine (conformance.run): its one order and selection of the cases, and the events a run
tells its handlers, in order, with the report files written at its end."""

from __future__ import annotations

import io
import itertools
import json
import sys
from pathlib import Path

import conformance.cases as cases
import pytest

from conformance.core.registry import CASES
from conformance.direct import finished
from conformance.events import CaseFinished, CaseStarted, Event, RunFinished, RunStarted, TargetDescribed
from conformance.handlers import EventLines, ReportFiles
from conformance.run import in_order, ordered, selected
from tests.conftest import revision_kept

cases.load_all()


def test_the_one_order_is_case_files_by_name_then_declaration_order() -> None:
    mine = ordered("acp")
    modules = [c.module for c in mine]
    assert modules == sorted(modules)
    declared = list(CASES)
    for a, b in itertools.pairwise(mine):
        if a.module == b.module:
            assert declared.index(a.id) < declared.index(b.id)
    assert in_order(reversed(mine)) == mine


def test_selection_is_by_id_or_by_keyword_in_the_one_order() -> None:
    every = ordered("acp")
    some = [every[5].id, every[0].id]
    assert [c.id for c in selected("acp", some)] == [every[0].id, every[5].id]
    unknown = selected("acp", keyword="unknown")
    assert unknown and all("unknown" in c.id or "unknown" in c.module for c in unknown)
    assert [c.id for c in unknown] == [c.id for c in every if c in unknown]
    with pytest.raises(KeyError):
        selected("acp", ["heartbeat.args.wrong-types"])  # another target's case


def test_a_run_tells_its_events_in_order_and_writes_its_report_at_the_end(tmp_path: Path) -> None:
    seen: list[Event] = []
    lines = io.StringIO()
    case_id = "status.error.unknown-session-code"
    with revision_kept():
        ended = finished([], [case_id], tmp_path, handlers=[seen.append, ReportFiles(), EventLines(lines)])
    kinds = [type(e) for e in seen]
    assert kinds == [RunStarted, TargetDescribed, CaseStarted, CaseFinished, RunFinished]
    described, done = seen[1], seen[3]
    assert isinstance(described, TargetDescribed) and described.advertised is True
    assert isinstance(done, CaseFinished) and (done.case_id, done.outcome) == (case_id, "pass")
    assert ended is seen[-1] and ended.exit_code == 0 and ended.path == tmp_path / "report.json"
    written = json.loads((tmp_path / "report.json").read_text())
    assert [c["id"] for c in written["cases"]] == [case_id] and written["selection"]["selected"] == 1
    assert [json.loads(line)["event"] for line in lines.getvalue().splitlines()] == [
        k.__name__ for k in kinds
    ]


def test_a_target_that_cannot_start_ends_the_run_with_exit_2(tmp_path: Path) -> None:
    seen: list[Event] = []
    command = f"{sys.executable} -c 'raise SystemExit(3)'"  # exits before it answers initialize
    with revision_kept():
        ended = finished(["--agent", command, "--timeout", "5"], None, tmp_path, handlers=[seen.append])
    assert [type(e) for e in seen] == [RunStarted, RunFinished]
    assert ended.exit_code == 2 and ended.fatal is not None and ended.fatal.startswith("cannot certify:")

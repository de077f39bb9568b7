"""Whatever a case records, the report is written: values JSON has no type for are kept as their
repr, and a record that cannot become an entry is that case's error, not the run's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import conformance.cases as cases

from conformance.core.outcomes import CaseResult, Outcome
from conformance.core.registry import CASES
from conformance.reports.report import case_record
from conformance.reports.text import jsonable
from conformance.runtime import CaseRecord
from conformance.targets.mcp.probe import ABSENT

cases.load_all()
CASE = CASES["heartbeat.instructions.ack-with-report"]


class Hostile:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class Long:
    def __repr__(self) -> str:
        return "x" * 2000


def test_every_value_becomes_one_json_holds() -> None:
    value = {
        "absent": ABSENT,
        1: {b"raw", (1, 2)},
        "nan": float("nan"),
        "path": Path("/x"),
        "hostile": Hostile(),
        "type": ABSENT.__class__,
        "ok": [None, True, 3, 2.5, "s"],
    }
    shown = jsonable(value)
    text = json.dumps(shown, allow_nan=False)
    assert shown["absent"] == "absent"
    assert shown["1"] == [[1, 2], "b'raw'"]
    assert shown["nan"] == "nan"
    assert shown["hostile"] == "<Hostile: repr failed: RuntimeError>"
    assert shown["ok"] == [None, True, 3, 2.5, "s"]
    assert "more chars" not in text and shown["type"].startswith("<class")
    assert jsonable(Hostile.__new__(Hostile).__class__.__mro__) == [repr(Hostile), repr(object)]
    assert len(jsonable(Long())) < 600  # a long repr is cut


def test_a_recorded_marker_object_keeps_the_case_and_the_report() -> None:
    result = CaseResult(Outcome.FAIL, "currentStep reads absent", expected="a value", observed=ABSENT)
    record = CaseRecord(result, 0.5, details={"seen": {"currentStep": ABSENT}})
    entry = case_record(CASE, record, [])
    assert entry.outcome == "fail" and entry.observed == "absent"
    assert entry.details == {"seen": {"currentStep": "absent"}}
    json.dumps(entry.to_json(), allow_nan=False)


def test_a_record_that_cannot_become_an_entry_is_that_cases_error() -> None:
    broken: Any = CaseResult(Outcome.FAIL, "m")
    broken.outcome = "not an outcome"  # a harness bug: no .value
    entry = case_record(CASE, CaseRecord(broken, 1.25), [])
    assert entry.outcome == "error"
    assert entry.message.startswith("harness error while recording the case's result: AttributeError")
    assert entry.duration == 1.25

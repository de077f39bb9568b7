"""The campaign's pure parts, on data: durations, finding fingerprints and deduplication, the
example database's namespaces and its fallback when the shared database is lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis.database import InMemoryExampleDatabase

from conformance.campaign import command
from conformance.campaign.command import Campaign, campaign_cases, parse_duration
from conformance.campaign.findings import Findings, fingerprint, shape
from conformance.campaign.report import render_html, thinned
from conformance.core import examples_db
from conformance.core.examples_db import FallbackDatabase, NamespacedDatabase


def test_durations() -> None:
    assert parse_duration("90") == 90 and parse_duration("90s") == 90
    assert parse_duration("15m") == 900 and parse_duration("2h") == 7200 and parse_duration("1.5h") == 5400
    for bad in ("", "two hours", "0s", "-5m", "5d"):
        with pytest.raises(ValueError):
            parse_duration(bad)


def test_campaign_cases_are_the_targets_hypothesis_cases() -> None:
    assert campaign_cases("acp") == [
        "fuzz.status.params",
        "fuzz.frames.survives",
        "fuzz.frames.error-codes",
        "sequence.status.model-based",
    ]
    assert campaign_cases("mcp") == ["heartbeat.instructions.model-based"]
    assert campaign_cases("http") == ["http.fuzz.session-id-forms"]


def failing(case_id: str, steps: list[dict], rule: str = "no-eviction", seed: int = 1) -> dict:
    return {
        "id": case_id,
        "outcome": "fail",
        "level": "MUST",
        "rule": rule,
        "message": "broken",
        "spec": {"sentence": "The agent MUST NOT …"},
        "details": {
            "steps": steps,
            "sequence": [f"{i + 1}. {s['op']}" for i, s in enumerate(steps)],
            "seed": seed,
        },
    }


SEQ = "sequence.status.model-based"


def test_one_bug_on_other_sessions_or_seeds_is_one_finding() -> None:
    a = failing(
        SEQ, [{"op": "new", "ref": "s0"}, {"op": "cancel", "ref": "s0"}, {"op": "status", "ref": "s0"}]
    )
    b = failing(
        SEQ,
        [{"op": "new", "ref": "s3"}, {"op": "cancel", "ref": "s3"}, {"op": "status", "ref": "s3"}],
        seed=9,
    )
    assert shape(a) == shape(b) == ["new(s0)", "cancel(s0)", "status(s0)"]
    assert fingerprint(a) == fingerprint(b)
    other_rule = failing(SEQ, a["details"]["steps"], rule="list-unchanged")
    with_meta = failing(SEQ, [*a["details"]["steps"][:2], {"op": "status", "ref": "s0", "meta": True}])
    assert len({fingerprint(a), fingerprint(other_rule), fingerprint(with_meta)}) == 3

    findings = Findings()
    report = {"cases": [a, {"id": "x", "outcome": "pass"}]}
    assert len(findings.add_report(report, at=3.0, worker=0, path="r1")) == 1
    assert findings.add_report({"cases": [b]}, at=9.0, worker=1, path="r2") == []
    (only,) = list(findings)
    assert (only.seen, only.workers, only.first_seen, only.worker) == (2, [0, 1], 3.0, 0)
    assert only.sentence == "The agent MUST NOT …" and only.seed == 1
    assert findings.add_report({"cases": [other_rule, with_meta]}, at=12.0, worker=0, path="r3")
    assert len(findings) == 3


def test_an_interrupted_case_is_no_finding() -> None:
    cut = {"id": SEQ, "outcome": "error", "message": "not finished: the run was interrupted", "details": {}}
    assert Findings().add_report({"cases": [cut]}, at=1.0, worker=0, path="r") == []


def test_ctrl_c_during_the_confirmation_leaves_the_finding_unconfirmed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C can come as the budget ends, while a finding is replayed: the campaign still writes
    # its reports and says the finding was not replayed (the interrupt ended it with "error:" before).
    campaign = Campaign(
        target="acp",
        target_args=["--agent", "agent"],
        cases=[SEQ],
        duration=10,
        workers=1,
        round_seconds=5,
        db=str(tmp_path / "db"),
        folder=tmp_path,
    )
    steps = [{"op": "new", "ref": "s0"}, {"op": "status", "ref": "s0"}]
    report = {"cases": [failing(SEQ, steps), failing(SEQ, steps, rule="list-unchanged")]}
    campaign.findings.add_report(report, at=1.0, worker=0, path="r1")

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(command.subprocess, "run", interrupted)
    campaign.confirm()
    first, second = list(campaign.findings)
    assert campaign.stopped_by == "interrupt"
    assert (first.confirmed, first.confirmation) == (
        "unconfirmed",
        "not replayed (the campaign was stopped during its replay)",
    )
    assert second.confirmed == "unconfirmed" and second.confirmation.startswith("not replayed")


def test_keys_are_namespaced_by_agent_target_revision_and_case() -> None:
    shared = InMemoryExampleDatabase()
    assert examples_db.database_for_case() is None  # outside a case
    token = examples_db.case_scope("acp", "rfd-2025", SEQ, database=shared, agent="my agent/1")
    try:
        db = examples_db.database_for_case()
        assert db is not None
        db.save(b"k", b"v")
    finally:
        examples_db.scope_reset(token)
    assert list(shared.fetch(b"my_agent_1/acp/rfd-2025/" + SEQ.encode() + b"/k")) == [b"v"]
    assert list(NamespacedDatabase(shared, b"other/").fetch(b"k")) == []


class Lost(InMemoryExampleDatabase):
    def __init__(self) -> None:
        super().__init__()
        self.up = True

    def _check(self) -> None:
        if not self.up:
            raise ConnectionError("Connection refused")

    def save(self, key: bytes, value: bytes) -> None:
        self._check()
        super().save(key, value)

    def fetch(self, key: bytes):
        self._check()
        return super().fetch(key)


def test_a_lost_shared_database_warns_once_and_loses_nothing(tmp_path: Path, capsys) -> None:
    primary: Lost = Lost()  # pyright: ignore[reportAssignmentType]  # hypothesis types every database made as ExampleDatabase (_EDMeta.__call__)
    db: FallbackDatabase = FallbackDatabase(primary, tmp_path / "local", "redis://h:1/0")  # pyright: ignore[reportAssignmentType]  # hypothesis types every database made as ExampleDatabase (_EDMeta.__call__)
    db.save(b"k", b"one")
    assert list(primary.fetch(b"k")) == [b"one"]
    primary.up = False
    db.save(b"k", b"two")
    db.save(b"k", b"three")
    assert sorted(db.fetch(b"k")) == [b"one", b"three", b"two"]
    assert db.lost is not None and "Connection refused" in db.lost
    assert capsys.readouterr().err.count("warning:") == 1


def test_the_html_report_escapes_what_the_agent_sent() -> None:
    finding = Findings()
    evil = failing(SEQ, [{"op": "new", "ref": "s0"}])
    evil["message"] = "<script>alert(1)</script>"
    finding.add_report({"cases": [evil]}, at=1.0, worker=0, path="r")
    data = {
        "target": "acp",
        "arguments": ["--agent", "a"],
        "started": "2026-12-01T00:00:00+00:00",
        "budget": 10,
        "duration": 10,
        "stoppedBy": "budget",
        "database": {"given": "db", "lost": None, "local": "l"},
        "workers": [{"index": 0, "timeline": [[0, 0], [5, 10]], "examples": 10, "rounds": []}],
        "examples": 10,
        "findingsTimeline": [[0, 0], [1, 1]],
        "coverage": {"states": {"acp:held": 3}, "transitions": {"acp:none --new--> held": 3}},
        "findings": [f.to_json() for f in finding],
        "problems": [],
    }
    page = render_html(data)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert page.count("<svg") == 2 and "acp:none --new--&gt; held" in page


def test_a_long_timeline_is_thinned_keeping_its_end() -> None:
    points = [(i * 0.5, i * 3) for i in range(14_400)]  # two hours, twice a second
    kept = thinned(points)
    assert len(kept) <= 601 and kept[0] == [0.0, 0] and kept[-1] == [7199.5, 43197]
    assert thinned([(0.0, 0), (0.5, 2)]) == [[0.0, 0], [0.5, 2]]


def test_the_model_states_are_derived_from_the_transitions() -> None:
    from conformance.core.progress import states_of

    moves = {
        "acp:none --new--> held": 3,
        "acp:held --close--> let-go": 2,
        "mcp:empty --enqueue--> undelivered": 1,
    }
    assert states_of(moves) == {
        "acp:none": 3,
        "acp:held": 2,
        "acp:let-go": 0,
        "mcp:empty": 1,
        "mcp:undelivered": 0,
    }

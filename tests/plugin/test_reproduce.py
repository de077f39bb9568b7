"""Reproductions are complete: each segment starts with initialize, restarts start a segment of
their own, and piping every reproduction of a run into a fresh agent gets every request answered
and shows the failure again."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conformance.core.transcript import NOTE, RECV, SEND, Entry
from conformance.replay.reproduce import pipe_segments
from conformance.runtime import reproduction
from tests.conftest import ROOT, RUNNER, agent_command, python_command


def frame(index: int, direction: str, body: dict, conn: str = "") -> Entry:
    return Entry(index, direction, 0.0, json.dumps(body), conn=conn)


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}


def test_a_case_that_restarts_gets_a_second_segment_that_starts_with_initialize() -> None:
    handshake = [frame(0, SEND, INIT), frame(1, RECV, {"jsonrpc": "2.0", "id": 1, "result": {}})]
    entries = [
        frame(5, SEND, {"jsonrpc": "2.0", "id": 7, "method": "session/new", "params": {}}),
        frame(6, RECV, {"jsonrpc": "2.0", "id": 7, "result": {"sessionId": "sess_a"}}),
        Entry(7, NOTE, 0.0, "restarting the agent"),
        frame(8, SEND, INIT),
        frame(
            9,
            SEND,
            {"jsonrpc": "2.0", "id": 8, "method": "session/status", "params": {"sessionId": "sess_a"}},
        ),
        frame(10, SEND, {"jsonrpc": "2.0", "id": 9, "method": "session/status"}, conn="B"),
    ]
    segments = reproduction(handshake, entries)
    assert [(s["connection"], s["start"]) for s in segments] == [
        ("main", "fresh"),
        ("main", "restart"),
        ("B", "fresh"),
    ]
    assert all(json.loads(s["lines"][0])["method"] == "initialize" for s in segments[:2])
    assert segments[0]["sessionIds"] == ["sess_a"]
    assert [json.loads(line)["method"] for line in segments[0]["lines"]] == ["initialize", "session/new"]


def run_with_reproductions(tmp_path: Path, agent: str, selection: str) -> dict:
    subprocess.run(
        [
            sys.executable,
            str(RUNNER),
            "--report-dir",
            str(tmp_path),
            "-q",
            "--agent",
            agent_command(agent),
            "-k",
            selection,
        ],
        capture_output=True,
        timeout=300,
        cwd=ROOT,
    )
    return json.loads((tmp_path / "report.json").read_text())


FAILING = [
    ("no_error_data", "status.error.unknown-session-data", '"data":null'),
    ("status_id_case_insensitive", "status.identity.id-variants", '"result":{"status":"active"}'),
    ("active_after_restart", "status.inactive.after-restart", '"result":{"status":"active"}'),
]


def pipe_case(tmp_path: Path, agent: str, case: dict) -> list:
    workdir = tmp_path / case["id"]
    workdir.mkdir()
    command = shlex.split(python_command(str(ROOT / "tests" / "agents" / f"{agent}.py")))
    return pipe_segments(case["reproduction"], command, str(workdir), timeout=10)


@pytest.mark.slow
def test_every_reproduction_of_a_run_pipes_into_a_fresh_agent(tmp_path: Path) -> None:
    report = run_with_reproductions(
        tmp_path / "run", "no_error_data", "not sequence and not fuzz and not cheap"
    )
    cases = [c for c in report["cases"] if c["reproduction"]]
    assert len(cases) >= 20, "a run writes a reproduction for every case that talks to the agent"
    for case in cases:
        assert all(json.loads(s["lines"][0])["method"] == "initialize" for s in case["reproduction"]), case[
            "id"
        ]
    with ThreadPoolExecutor(4) as pool:  # every case in a fresh agent: processes start in parallel
        piped = dict(
            zip(
                [c["id"] for c in cases],
                pool.map(lambda c: pipe_case(tmp_path, "no_error_data", c), cases),
                strict=True,
            )
        )
    unanswered = {cid: [e.unanswered for e in ex if e.unanswered] for cid, ex in piped.items()}
    assert {k: v for k, v in unanswered.items() if v} == {}, "requests without an answer"


@pytest.mark.slow
@pytest.mark.parametrize(("agent", "failing", "shows"), FAILING)
def test_a_reproduction_shows_the_failure_again(tmp_path: Path, agent: str, failing: str, shows: str) -> None:
    report = run_with_reproductions(tmp_path / "run", agent, failing)
    case = next(c for c in report["cases"] if c["id"] == failing)
    assert case["outcome"] == "fail", case["message"]
    exchanges = pipe_case(tmp_path, agent, case)
    received = "".join(line for e in exchanges for line in e.received)
    assert shows in received, f"{failing}: the reproduction did not show the failure again"

"""The embedded reference agent is certified conformant, in every mode, serially and under xdist."""

from __future__ import annotations

import json
import sys

import pytest
from jsonschema import Draft202012Validator

from conformance.core.registry import CASES
from tests.conftest import REFERENCE_MODULE, ROOT, python_command
from tests.targets.acp.test_broken_agents import BASELINE

REPORT_SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text())


# The reference agent certified at the default budget, every case and every report file: the
# README's quick start does it from a fresh clone (tests/e2e/test_readme_commands.py).


@pytest.mark.slow
def test_xdist_gives_one_merged_report(suite) -> None:
    """Two workers, two agents, one report with every selected case (the sequences and fuzzers
    are left out: they run in full in the README's quick start, tests/e2e/test_readme_commands.py)."""
    run = suite(
        "-n", "2", "-k", "not sequence and not fuzz", "--agent", python_command("-m", REFERENCE_MODULE)
    )
    assert run.code == 0, run.stderr
    expected = {c: o for c, o in BASELINE.items() if not c.startswith(("sequence.", "fuzz."))}
    assert run.outcomes == expected, run.diff(expected)
    assert len(run.report["cases"]) == len([c for c in CASES.values() if c.target == "acp"]) - 4
    assert run.report["selection"]["deselected"] == 4
    Draft202012Validator(REPORT_SCHEMA).validate(run.report)


def test_in_memory_agent_is_conformant(direct) -> None:
    """Without persistence, -32002 after a restart is accepted."""
    run = direct(
        "--agent",
        f"{sys.executable} -m conformance.reference.acp.agent --in-memory",
        cases=[c for c in BASELINE if not CASES[c].slow or c == "status.inactive.after-restart"],
    )
    assert run.code == 0, run.stderr
    assert run.case("status.inactive.after-restart")["details"]["status_after_restart"] == "unknown"


def test_agent_without_status_is_unimplemented(direct) -> None:
    run = direct("--agent", f"{sys.executable} -m conformance.reference.acp.agent --no-status")
    assert run.code == 3, run.stderr
    assert run.report["verdict"]["label"] == "unimplemented"
    outcomes = run.outcomes
    assert outcomes.pop("capability.status.unadvertised-method-not-found") == "pass"
    assert outcomes.pop("transport.stdout.messages-only") == "pass"  # needs no session/status
    # Nothing can change an unimplemented verdict: no model call is spent on it.
    assert run.report["prompts"]["sent"] == 0, run.report["prompts"]
    v2_cases = {k for k in outcomes if k.startswith("status.state.")}
    assert {outcomes.pop(k) for k in v2_cases} == {"n/a"}  # ACP v2 cases in a v1 run
    assert set(outcomes.values()) == {"unimplemented"}


def test_failure_report_names_sentence_transcript_and_reproduction(suite) -> None:
    from tests.conftest import agent_command

    run = suite("--agent", agent_command("no_error_data"), "-k", "unknown-session-data")
    assert run.code == 1
    case = run.case("status.error.unknown-session-data")
    assert case["outcome"] == "fail"
    assert "sessionId" in case["spec"]["sentence"]
    assert any('"session/status"' in f["frame"] for f in case["transcript"] if f["dir"] == "send")
    assert any('"code":-32002' in f["frame"] for f in case["transcript"] if f["dir"] == "recv")
    lines = case["reproduction"][0]["lines"]
    assert json.loads(lines[0])["method"] == "initialize"
    assert json.loads(lines[-1])["method"] == "session/status"
    assert "status.error.unknown-session-data [MUST] -> FAIL" in run.stdout

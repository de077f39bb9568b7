"""What CI systems read: junit.xml, Allure results, and baselines of known failures."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from tests.conftest import agent_command

CRASHES = agent_command("harness/exits_mid_run")  # dies on its first request after initialize
SUBSET = "long-session-id or result.shape"  # one spec failure, one crash (error) on that agent


def test_junit_keeps_error_apart_from_failure_and_carries_the_transcript(suite, tmp_path: Path) -> None:
    run = suite("--agent", CRASHES, "-k", SUBSET)
    assert run.outcomes == {"status.error.long-session-id": "fail", "status.result.shape": "error"}
    tree = ET.parse(tmp_path / "report" / "junit.xml")
    suite_el = tree.find("testsuite")
    assert suite_el is not None and (suite_el.get("failures"), suite_el.get("errors")) == ("1", "1")
    cases = {tc.get("name"): tc for tc in tree.iter("testcase")}
    failed, broken = cases["status.error.long-session-id"], cases["status.result.shape"]
    assert failed.find("failure") is not None and failed.find("error") is None
    assert broken.find("error") is not None and broken.find("failure") is None
    # CI test views show the message attribute: the reason, expected vs seen; the body the rest.
    failure = failed.find("failure")
    assert failure is not None
    message = failure.get("message", "")
    assert message.startswith("status.error.long-session-id [MUST]") and "expected: " in message, message
    assert "more lines" not in message and (failure.text or "").strip()
    props = {p.get("name"): p.get("value") for p in broken.iter("property")}
    assert props["outcome"] == "error" and props["level"] == "MUST" and props["revision"] == "rfd-2026-10-26"
    assert props["spec"] == "SessionStatusResponse: status (required), _meta (optional)."
    assert props["spec_url"] == "https://agentclientprotocol.com/rfds/session-status#schema"
    out = broken.findtext("system-out") or ""
    assert '--> {"jsonrpc":"2.0"' in out and '"method":"session/new"' in out
    assert "out of cheese" in out  # the agent's stderr tail


def test_allure_results_say_failed_or_broken_with_labels_link_and_transcript(suite, tmp_path: Path) -> None:
    allure_dir = tmp_path / "allure"
    suite("--agent", CRASHES, "-k", SUBSET, "--alluredir", str(allure_dir))
    results = {}
    for path in allure_dir.glob("*-result.json"):
        data = json.loads(path.read_text())
        results[data["name"]] = data
    assert results["status.error.long-session-id"]["status"] == "failed"
    assert results["status.result.shape"]["status"] == "broken"
    shape = results["status.result.shape"]
    labels = {(label["name"], label["value"]) for label in shape["labels"]}
    assert {("severity", "critical"), ("epic", "status.result"), ("tag", "rfd-2026-10-26")} <= labels
    assert ("feature", "Schema") in labels
    assert shape["links"][0]["url"] == "https://agentclientprotocol.com/rfds/session-status#schema"
    attachments = {a["name"]: a["source"] for a in shape["attachments"]}
    transcript = (allure_dir / attachments["wire transcript (ndjson)"]).read_text()
    assert '"dir": "send"' in transcript and "session/new" in transcript


# -- baselines ----------------------------------------------------------------------------------

KNOWN = "status.error.unknown-session-data"
BROKEN = agent_command("no_error_data")  # fails KNOWN and nothing else in this subset
ONLY = "unknown-session"


def write_toml(path: Path, entries: dict[str, str]) -> Path:
    path.write_text(
        "".join(f'[[expected-failures]]\nid = "{k}"\nreason = "{v}"\n\n' for k, v in entries.items())
    )
    return path


def test_known_failure_does_not_fail_the_run(suite, tmp_path: Path) -> None:
    baseline = write_toml(tmp_path / "baseline.toml", {KNOWN: "no data until SDK 0.4 (#12)"})
    run = suite("--agent", BROKEN, "-k", ONLY, "--expected-failures", str(baseline))
    assert run.code == 0, run.stderr
    assert "every failure is a known one" in run.stderr
    assert (
        run.report["verdict"]["selected"] == "non-conformant"
    )  # the verdict stays honest (a -k run: partial)
    assert run.report["baseline"] == {
        "file": str(baseline),
        "known": [KNOWN],
        "new": [],
        "stale": [],
        "todo": [],
        "ok": True,
        "exitCode": 0,
        "explanation": run.report["baseline"]["explanation"],
    }
    assert run.case(KNOWN)["baseline"] == "known" and "xfailed" in run.stdout
    # The terminal's last words agree with the exit code: the gate's, not the verdict's.
    assert "1 known failure(s) (baseline); gate: pass (exit 0)" in run.stdout
    assert "(exit 1)" not in run.stdout and " failed" not in run.stdout.splitlines()[-1]


def test_new_failure_fails_the_run(suite, tmp_path: Path) -> None:
    baseline = write_toml(tmp_path / "baseline.toml", {"status.error.unknown-session-code": "flaky, see #3"})
    run = suite("--agent", BROKEN, "-k", ONLY, "--expected-failures", str(baseline))
    assert run.code == 1
    assert f"new failure(s) not in the baseline: {KNOWN}" in run.stderr
    assert run.report["baseline"]["new"] == [KNOWN]


def test_entry_that_now_passes_is_stale_and_fails_the_run(suite, tmp_path: Path) -> None:
    baseline = write_toml(tmp_path / "baseline.toml", {KNOWN: "no data until SDK 0.4 (#12)"})
    run = suite("-k", ONLY, "--expected-failures", str(baseline))  # the reference agent passes it
    assert run.code == 1
    assert "stale baseline entries" in run.stderr and run.report["baseline"]["stale"] == [KNOWN]
    assert f"stale baseline entry: {KNOWN} passes now; remove it from {baseline}" in run.stdout
    # Named as stale, not counted among pytest's failures: the case passes.
    last = run.stdout.strip().splitlines()[-1]
    assert "1 stale" in last and "failed" not in last, last


def test_warnings_count_only_under_strict(suite, tmp_path: Path) -> None:
    warn_agent = agent_command("wrong_error_message")  # breaks a SHOULD only
    empty = write_toml(tmp_path / "empty.toml", {})
    assert suite("--agent", warn_agent, "-k", ONLY, "--expected-failures", str(empty)).code == 0
    assert suite("--agent", warn_agent, "-k", ONLY, "--expected-failures", str(empty), "--strict").code == 1
    listed = write_toml(tmp_path / "listed.toml", {"status.error.unknown-session-message": "wording, #7"})
    assert suite("--agent", warn_agent, "-k", ONLY, "--expected-failures", str(listed), "--strict").code == 0
    # Not strict: the warning is no failure, and the entry is not stale either (the case did not pass).
    run = suite("--agent", warn_agent, "-k", ONLY, "--expected-failures", str(listed))
    assert run.code == 0 and run.report["baseline"]["stale"] == []


@pytest.mark.parametrize("name", ["baseline.toml", "baseline.yaml"])
def test_update_writes_the_baseline_and_keeps_reasons(suite, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    agent = agent_command("unknown_internal_error")  # fails unknown-session-code and long-session-id
    both = "unknown-session or long-session"
    run = suite("--agent", agent, "-k", both, "--expected-failures", str(path), "--update-expected-failures")
    assert run.code == 0, run.stderr
    text = path.read_text()
    data = yaml.safe_load(text) if name.endswith(".yaml") else __import__("tomllib").loads(text)
    entries = {e["id"]: e["reason"] for e in data["expected-failures"]}
    assert set(entries) == {"status.error.unknown-session-code", "status.error.long-session-id"}
    assert all(reason.startswith("TODO: say why") for reason in entries.values())
    # Complete, short reasons: a whole first clause of the finding, never cut mid-phrase.
    assert all(len(reason) < 200 and reason.endswith(")") for reason in entries.values()), entries
    # TODO reasons are named as warnings; under --strict they fail the gate.
    warned = suite("--agent", agent, "-k", both, "--expected-failures", str(path))
    assert warned.code == 0 and warned.stdout.count("reason still says TODO") == 2, warned.stdout
    strict = suite("--agent", agent, "-k", both, "--expected-failures", str(path), "--strict")
    assert strict.code == 1 and "still says TODO (--strict)" in strict.stderr, strict.stderr
    # A human edits one reason; the next update keeps it and drops what now passes.
    edited = text.replace(entries["status.error.long-session-id"], "crashes on 10 kB ids (#9)", 1)
    path.write_text(edited)
    again = suite(
        "--agent", agent, "-k", "long-session", "--expected-failures", str(path), "--update-expected-failures"
    )
    assert again.code == 0
    text = path.read_text()
    assert "crashes on 10 kB ids (#9)" in text and "unknown-session-code" in text  # deselected: kept
    assert suite("--agent", agent, "-k", both, "--expected-failures", str(path)).code == 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '[[expected-failures]]\nid = "status.no-such-case"\nreason = "x"\n',
            "does not have: status.no-such-case (renamed or mistyped?)",
        ),
        (
            '[[expected-failures]]\nid = "status.result.shap"\nreason = "x"\n',
            "status.result.shap (did you mean status.result.shape?)",
        ),
        ('[[expected-failures]]\nid = "status.result.shape"\n', "has no reason"),
        ("expected-failures = 3\n", "expected a list"),
        ("[[expected-failures]\n", "is not valid TOML"),
    ],
)
def test_bad_baseline_is_a_usage_error(suite, tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "baseline.toml"
    path.write_text(body)
    run = suite("-k", ONLY, "--expected-failures", str(path))
    assert run.code == 2 and message in run.stderr, run.stderr


def test_update_needs_a_file(suite) -> None:
    run = suite("-k", ONLY, "--update-expected-failures")
    assert run.code == 2 and "needs --expected-failures FILE" in run.stderr


def test_a_run_pytest_stops_early_says_what_did_not_run(suite) -> None:
    """-x stops at the first failure: no certificate, the stop named, not "deselected"."""
    run = suite("--agent", BROKEN, "--", "-x")
    assert run.code == 1, run.stderr
    selection = run.report["selection"]
    assert selection["stopped"] == "stopping after 1 failures" and selection["deselected"] > 0
    assert selection["selected"] + selection["deselected"] == selection["total"]
    assert "stopping after 1 failures: " in run.stderr and "not run); no certificate" in run.stderr
    assert "deselected" not in run.stderr.splitlines()[-1]

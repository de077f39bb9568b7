"""Real agents' time scales, scaled down for CI: a request answers in milliseconds, a turn (a model
call) in seconds to minutes. Turns three times slower than --timeout get the fast agent's verdict;
a model that cannot be reached makes the cases that prompt not testable, never ERROR; a slow or
authenticating session/new does not hide that an agent has no status method; --max-prompts caps
the run's model calls; SIGTERM and SIGHUP stop a run as Ctrl-C does. The agent is the reference
with the behaviour switched on (tests/agents/misbehaving/real_time.py). No timed assertions here
but generous bounds on hangs."""

from __future__ import annotations

import json
import math
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conformance.core.profiles import PROFILES
from conformance.transport.stdio import live_group_members
from tests.conftest import AGENTS, ROOT, python_command
from tests.targets.acp.test_broken_agents import BASELINE, V2_BASELINE

REAL_TIME = AGENTS / "misbehaving" / "real_time.py"
TIMEOUT = 1.0  # the request clock of these runs
TURN = 3 * TIMEOUT  # every turn takes three times --timeout
SMOKE = PROFILES["smoke"].budget
README = (ROOT / "docs" / "how-to" / "real-agent.md").read_text()  # where the documentation states the bound


def agent(*flags: str) -> str:
    return python_command(str(REAL_TIME), *flags)


def plain_agent(*flags: str) -> str:
    """As a plain process: the tests about signals need the agent in a process group of its own."""
    return f"{sys.executable} {REAL_TIME} {' '.join(flags)}"


def readme_bound() -> int:
    """The prompts a certification sends besides the sequences', as the README states it."""
    found = re.search(r"at most (\d+) prompts\s+besides the sequences'", README)
    assert found, "docs/how-to/real-agent.md ('Certify a real agent with a model') states the bound"
    return int(found.group(1))


def left_in_flight(report: dict) -> list[tuple[str, str]]:
    """Calls a case left in flight, answered in a later one (as late answers, or as answers to no
    request), by the case they landed in."""
    return [
        (c["id"], f["frame"])
        for c in report["cases"]
        for f in c["transcript"]
        if f["dir"] == "note" and ("a late answer" in f["frame"] or f["frame"].startswith("envelope:"))
    ]


def prompting(report: dict) -> list[dict]:
    return [c for c in report["cases"] if (c.get("details") or {}).get("prompts")]


@pytest.mark.slow
def test_turns_slower_than_the_request_clock_get_the_fast_agents_verdict(direct) -> None:
    """Each turn takes three times --timeout (its permission request comes as late): every case
    gets the reference's own outcome, every case that prompts is judged, and the run sends and
    takes what the README says."""
    started = time.monotonic()
    run = direct("--agent", agent("--turn-delay", str(TURN)), "--timeout", str(TIMEOUT), "--profile", "smoke")
    elapsed = time.monotonic() - started
    assert run.outcomes == BASELINE, run.diff(BASELINE)
    assert run.code == 0, run.stderr
    judged = prompting(run.report)
    assert len(judged) > 10 and all(c["outcome"] == "pass" for c in judged), [c["id"] for c in judged]
    sequence = run.case("sequence.status.model-based")["details"]
    assert "time budget spent" in sequence["budget_note"] and sequence["steps_run"] > 0
    assert sequence.get("prompts", 0) <= math.ceil(SMOKE / TURN) + 1, sequence
    scripted = run.report["prompts"]["sent"] - sequence.get("prompts", 0)
    assert scripted <= readme_bound(), f"{scripted} prompts: update the README's bound"
    # The README's estimate, (prompts + 4) turns + the sequences' budget and one turn over it, plus
    # what the requests take: a generous bound on a hang, not a timing test.
    expected = (scripted + 4) * TURN + SMOKE + TURN
    assert elapsed < 2 * expected + 90, f"{elapsed:.0f} s for an estimate of {expected:.0f} s"


@pytest.mark.slow
def test_v2_turns_slower_than_the_request_clock_are_waited_for(direct) -> None:
    """v2: the turn's `idle` state_update and its permission request come three times --timeout
    after the prompt's answer; the snapshot cases still see each state."""
    cases = [c for c in V2_BASELINE if c.startswith("status.state.") or c == "status.active.during-turn"]
    run = direct(
        "--protocol",
        "2",
        "--agent",
        agent("--protocol", "2", "--turn-delay", str(TURN)),
        "--timeout",
        str(TIMEOUT),
        cases=cases,
    )
    expected = {c: V2_BASELINE[c] for c in cases}
    assert run.outcomes == expected, run.diff(expected)
    assert {c["id"] for c in prompting(run.report)} >= {
        "status.state.requires-action",
        "status.state.idle-after-turn",
    }


@pytest.mark.slow
def test_titles_a_turn_later_than_their_twins_are_the_agents_own(direct) -> None:
    """A title made by a model call a moment more than a turn after each turn lands while status is
    asked about a session, and reaches its control (prompted a turn later) a turn later: the
    control cases wait for it, and blame status for nothing."""
    cases = ["status.no-side-effects.no-notifications", "status.no-side-effects.list-unchanged"]
    flags = ("--turn-delay", "2", "--title-after", "2.3")
    run = direct("--agent", agent(*flags), "--timeout", str(TIMEOUT), cases=cases)
    assert run.outcomes == dict.fromkeys(cases, "pass"), run.diff(dict.fromkeys(cases, "pass"))


@pytest.mark.slow
def test_an_unreachable_model_is_not_testable_where_it_prompts_never_an_error(direct) -> None:
    """Every turn hangs: the first cases that prompt wait out --turn-timeout and say which option
    would help; after two of them, the cases that prompt end at their first prompt; the cases
    that never prompt still run and pass."""
    started = time.monotonic()
    run = direct("--agent", agent("--model", "hang"), "--turn-timeout", "2", "--profile", "smoke")
    elapsed = time.monotonic() - started
    outcomes = run.outcomes
    assert "error" not in outcomes.values() and "fail" not in outcomes.values(), run.diff(BASELINE)
    turned = {c: o for c, o in outcomes.items() if BASELINE[c] != o}
    assert turned and set(turned.values()) == {"not-testable"}, turned
    waited = [c for c in run.report["cases"] if "within 2 s (--turn-timeout)" in c["message"]]
    assert len(waited) == 2 and all("pass a larger --turn-timeout" in c["message"] for c in waited)
    skipped = [c for c in turned if c not in {w["id"] for w in waited}]
    assert all("the turn did not end within --turn-timeout" in run.case(c)["message"] for c in skipped)
    # What never prompts is untouched: the status cases, the fuzzers.
    for case_id in ("status.result.shape", "status.error.unknown-session-code", "fuzz.status.params"):
        assert outcomes[case_id] == "pass", run.case(case_id)["message"]
    assert run.code == 0, run.stderr
    assert elapsed < 120, f"took {elapsed:.0f} s"  # two turn timeouts, not one per case


def test_a_v2_prompt_refused_at_once_is_not_waited_for(direct) -> None:
    """v2, no model configured: every session/prompt is answered with an error at once, so no
    turn runs. The cases that need a turn are not testable, each saying why, and none waits out
    --turn-timeout for a turn's end that cannot come (at the default 300 s, twenty minutes)."""
    turn_timeout = 60
    flags = ("--protocol", "2", "--model", "refuse")
    run = direct(
        "--protocol", "2", "--agent", agent(*flags), "--turn-timeout", str(turn_timeout), "--profile", "smoke"
    )
    refused = [c for c in run.report["cases"] if "session/prompt failed" in c["message"]]
    states = (
        "idle-after-turn",
        "requires-action",
        "own-last-update",
        "no-state-update",
        "running-during-turn",
    )
    assert {f"status.state.{s}" for s in states} <= {c["id"] for c in refused}, run.diff(V2_BASELINE)
    assert all(c["outcome"] == "not-testable" for c in refused), [(c["id"], c["outcome"]) for c in refused]
    assert "error" not in run.outcomes.values() and "fail" not in run.outcomes.values(), run.diff(V2_BASELINE)
    assert run.code == 0, run.stderr
    waited = [c["id"] for c in run.report["cases"] if c["duration"] >= turn_timeout]
    assert not waited, f"waited out --turn-timeout for a refused prompt's turn: {waited}"


def test_a_slow_session_new_does_not_hide_an_unimplemented_status(suite) -> None:
    """session/new takes three times --timeout, and the agent does not advertise status (as
    claude-agent-acp offline): exit 3 whether or not it offers authentication (the pre-flight
    asks session/new once then), with what initialize said in the report."""
    for auth in ((), ("--auth", "offer")):
        flags = ("--no-status", "--new-delay", str(TURN), *auth)
        run = suite("--agent", agent(*flags), "--timeout", str(TIMEOUT), "--profile", "smoke")
        assert run.code == 3, run.stderr[-2000:]
        last = run.stderr.strip().splitlines()[-1]
        assert last.startswith("UNIMPLEMENTED: the agent does not advertise agentCapabilities"), last
        assert run.report["acp"]["agentInfo"]["name"] == "acp-reference-agent"
        assert "sessionCapabilities" in run.report["acp"]["agentCapabilities"]
        assert "error" not in run.outcomes.values()
        if auth:
            assert "session/new (id 2) got no answer: no response within 1 s (--timeout)" in last


def test_an_agent_that_needs_authentication_and_has_no_status_is_unimplemented(suite) -> None:
    """codex-acp without --auth-method: initialize said everything the verdict needs. The report
    keeps it (name, capabilities, the matrix column); the hint survives the agent's long answer,
    cut with an ellipsis, in every output."""
    run = suite("--agent", agent("--no-status", "--auth", "require"), "--profile", "smoke")
    assert run.code == 3, run.stderr[-2000:]
    last = run.stderr.strip().splitlines()[-1]
    assert "pass --auth-method ID (it offers: api-key)" in last and "…" in last, last
    assert run.report["acp"]["agentInfo"]["name"] == "acp-reference-agent"
    assert run.report["verdict"]["label"] == "unimplemented" and run.report["fatal"]
    summary = (run.report_dir / "summary.md").read_text()
    assert "pass --auth-method ID (it offers: api-key)" in summary and "…" in summary
    badge = (run.report_dir / "badge.svg").read_text()
    assert "aria-label='ACP session/status: unimplemented'" in badge
    told = suite("--agent", agent("--auth", "require"), "--profile", "smoke")  # status advertised: exit 2
    assert (
        told.code == 2
        and "pass --auth-method ID (it offers: api-key)" in told.stderr.strip().splitlines()[-1]
    )


def test_max_prompts_zero_certifies_what_needs_no_model(direct) -> None:
    run = direct("--max-prompts", "0", "--profile", "smoke")
    assert run.report["prompts"] == {"sent": 0, "limit": 0, "notSent": run.report["prompts"]["notSent"]}
    refused = run.report["prompts"]["notSent"]
    assert len(refused) > 10
    for case_id in refused:
        case = run.case(case_id)
        assert case["outcome"] == "not-testable" and "--max-prompts 0" in case["message"], case
    others = {c: o for c, o in run.outcomes.items() if c not in refused}
    assert others == {c: BASELINE[c] for c in others}, run.diff(BASELINE)
    assert run.code == 0
    # A case refuses its prompt before it sends the calls that go with it (race-prompt's status
    # calls): none is left in flight to be answered in a later case.
    assert left_in_flight(run.report) == []
    sent = [f["frame"] for f in run.case("status.overlap.race-prompt")["transcript"] if f["dir"] == "send"]
    assert all('"session/new"' in frame for frame in sent), sent


def test_a_small_prompt_budget_holds_across_workers(suite) -> None:
    run = suite("--max-prompts", "3", "-n", "2", "--profile", "smoke")
    assert run.code == 0, run.stderr[-2000:]
    prompts = run.report["prompts"]
    assert prompts["sent"] == 3 and prompts["limit"] == 3
    assert prompts["notSent"] and all("--max-prompts 3" in run.case(c)["message"] for c in prompts["notSent"])
    # The sequences leave out the prompt steps they cannot send (a race around a prompt too).
    assert run.case("sequence.status.model-based")["outcome"] == "pass"
    assert left_in_flight(run.report) == []
    assert "prompts: 3 of at most 3 (--max-prompts) sent" in run.stdout


def run_and_signal(report_dir: Path, agent_flags: tuple[str, ...], sig: int, ready: str) -> tuple[int, str]:
    """The runner, stopped with ``sig`` once its output shows ``ready``: (exit code, stderr)."""
    runner = [sys.executable, str(ROOT / "runner.py"), "--report-dir", str(report_dir)]
    proc = subprocess.Popen(
        [*runner, "--agent", plain_agent(*agent_flags), "--timeout", "30", "--profile", "smoke"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A run started under nohup ignores SIGHUP on purpose (the runner keeps that choice): the
        # run here is a terminal's, whatever started the tests.
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL),
    )
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if ready in line:
            break
    else:
        pytest.fail("".join(seen))
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"signal {sig} did not stop the run")
    return proc.returncode, err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_stop_a_run_as_ctrl_c_does(tmp_path: Path, sig: int) -> None:
    """A CI job's timeout (SIGTERM), a closed terminal (SIGHUP): the partial report, marked
    incomplete, its path printed, the agent's process group ended, exit 2."""
    report_dir = tmp_path / "r"
    code, err = run_and_signal(report_dir, ("--turn-delay", "1"), sig, "status.result.shape")
    assert code == 2, err[-2000:]
    assert (
        err.strip().splitlines()[-1]
        == f"error: interrupted: partial report (marked incomplete) in {report_dir / 'report.json'}"
    )
    report = json.loads((report_dir / "report.json").read_text())
    assert report["incomplete"] is True and report["verdict"]["label"] == "incomplete"
    for name in ("report.html", "summary.md", "badge.svg"):
        assert (report_dir / name).is_file(), name
    pgids = {c["details"].get("agent_pgid") for c in report["cases"]} | set(report["processGroups"])
    deadline = time.monotonic() + 5
    while any(live_group_members(p) for p in pgids - {None}) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(live_group_members(p) == [] for p in pgids - {None})


def test_a_signal_during_the_pre_flight_keeps_what_initialize_said(tmp_path: Path) -> None:
    """The pre-flight waits on a slow session/new (the agent offers authentication): SIGTERM then
    still writes the partial report, with the agent's name, and prints its path."""
    report_dir = tmp_path / "r"
    runner = [sys.executable, str(ROOT / "runner.py"), "--report-dir", str(report_dir), "--timeout", "60"]
    marker = tmp_path / "session-new-arrived"
    proc = subprocess.Popen(
        [*runner, "--agent", plain_agent("--auth", "offer", "--new-delay", "60", "--mark-new", str(marker))],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not marker.is_file():  # initialize answered; session/new pending
        assert time.monotonic() < deadline and proc.poll() is None, "session/new never arrived"
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, err[-2000:]
    assert (
        f"partial report (marked incomplete) in {report_dir / 'report.json'}" in err.strip().splitlines()[-1]
    )
    report = json.loads((report_dir / "report.json").read_text())
    assert report["incomplete"] is True and report["acp"]["agentInfo"]["name"] == "acp-reference-agent"
    assert all(live_group_members(p) == [] for p in report["processGroups"])


@pytest.mark.slow
def test_a_turn_the_agent_abandoned_is_not_waited_out(direct) -> None:
    """v2: status drops the permission request a turn waits on and abandons the turn; no update
    ever ends it, and the snapshot says `idle`. The agent's own answer is evidence: each wait for
    that turn's end stops --timeout after it, never at --turn-timeout (here 120 s, at the default
    300 s each such wait cost five minutes). A generous bound on a hang, not a timing test."""
    turn_timeout, timeout = 120, 3
    cases = ["status.active.during-turn", "status.state.own-last-update", "status.state.requires-action"]
    started = time.monotonic()
    run = direct(
        "--protocol",
        "2",
        "--agent",
        python_command(str(AGENTS / "acp" / "v2_status_drops_permission.py")),
        "--turn-timeout",
        str(turn_timeout),
        "--timeout",
        str(timeout),
        cases=cases,
    )
    elapsed = time.monotonic() - started
    expected = {"status.active.during-turn": "fail", "status.state.own-last-update": "fail"}
    assert run.outcomes == expected | {"status.state.requires-action": "warn"}, run.outcomes
    slow = {c["id"]: c["duration"] for c in run.report["cases"] if c["duration"] >= turn_timeout / 2}
    assert not slow, f"waited out the turn clock: {slow}"
    assert elapsed < turn_timeout, f"{elapsed:.0f} s"

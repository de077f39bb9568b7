"""The suite survives any agent: bounded time, a clear outcome, a report, no process left."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from conformance.transport.stdio import live_group_members
from tests.conftest import ROOT, Run, python_command

AGENTS = ROOT / "tests" / "agents" / "misbehaving"
QUICK = ("--timeout", "3", "-k", "not sequence and not fuzz and not cheap")


# Agents whose tests are about the process itself (its start, its group, its signals) run as
# plain commands; the others start from the tests' fork server (tests/launcher.py).
PLAIN = {"never_initializes", "answers_after_10s", "exits_at_start", "ignores_sigterm", "leaves_child"}


def command(name: str) -> str:
    if name in PLAIN:
        return f"{sys.executable} {AGENTS / name}.py"
    return python_command(str(AGENTS / f"{name}.py"))


def no_agent_process_left(run: Run) -> None:
    assert run.report is not None
    pgids = {c["details"].get("agent_pgid") for c in run.report["cases"]} - {None}
    pgids |= set(run.report.get("processGroups") or [])
    assert pgids, "the report names no agent process group"
    deadline = time.monotonic() + 5
    while any(live_group_members(p) for p in pgids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(live_group_members(p) == [] for p in pgids), "agent processes outlived the run"


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        ("never_initializes", "did not answer initialize"),
        ("answers_after_10s", "did not answer initialize"),
        ("exits_at_start", "OPENAI_API_KEY is not set"),
        (
            "prints_only_text",
            "it printed 3 lines on stdout, none of them JSON (stdout is for JSON-RPC messages only); the first: "
            "'Agent v1.2 \\x1b[32mready\\x1b[0m\\ton stdio xxxxx",
        ),
    ],
)
def test_agent_that_cannot_start_is_a_usage_error(suite, agent: str, message: str) -> None:
    started = time.monotonic()
    run = suite("--agent", command(agent), *QUICK)
    assert run.code == 2
    last = run.stderr.strip().splitlines()[-1]
    assert message in last
    assert "--mcp-cmd" not in last  # an ACP run's message speaks of ACP only
    if "initialize" in message:
        assert "does it serve ACP session/status over stdio?" in last
    assert time.monotonic() - started < 30
    no_agent_process_left(run)


@pytest.mark.slow
def test_agent_dying_mid_case_errors_that_case_and_the_rest_run(suite) -> None:
    run = suite("--agent", command("exits_mid_case"), *QUICK)
    died = [c for c in run.report["cases"] if "agent exited with code 9" in c["message"]]
    assert died, [c["message"] for c in run.report["cases"]]
    assert sum(c["outcome"] == "pass" for c in run.report["cases"]) >= 10  # restarted, went on
    assert run.code == 1, (run.report["verdict"], run.stderr[-2000:])  # its death is its failure
    no_agent_process_left(run)


@pytest.mark.slow
def test_banner_on_stdout_is_named_where_it_was_seen_and_escaped(suite) -> None:
    """A banner is stdout noise (ACP's transport): a robustness finding of its own case, with the
    banner frame in the failure's window; no other case is blamed for it, however often the agent
    restarts; the verdict stands."""
    run = suite("--agent", command("stdout_banner"), *QUICK)
    assert run.code == 0, run.diff({})
    finding = run.case("transport.stdout.messages-only")
    assert finding["outcome"] == "warn" and finding["level"] == "ROBUSTNESS"
    assert "Welcome to BannerAgent" in finding["message"] and "frame #" in finding["message"]
    assert finding["spec"]["source"] == "acp-transports"
    banner = [f for f in finding["transcript"] if "Welcome to BannerAgent" in f["frame"]]
    assert banner, "the banner frame is in the case's transcript"
    others = [
        c for c in run.report["cases"] if c["id"] != finding["id"] and c["outcome"] in ("fail", "error")
    ]
    assert others == [], [(c["id"], c["message"]) for c in others]
    restarted = run.case("status.inactive.after-restart")
    assert restarted["outcome"] == "pass" and restarted["details"].get("stdout_noise")
    assert "\x1b" not in run.stdout, "terminal control sequences reached the console"
    assert "Welcome to BannerAgent" in run.stdout
    no_agent_process_left(run)


@pytest.mark.slow
def test_strict_counts_the_banner(suite) -> None:
    run = suite("--agent", command("stdout_banner"), "--strict", "-k", "transport")
    assert run.code == 1 and run.case("transport.stdout.messages-only")["outcome"] == "fail"


@pytest.mark.slow
def test_agent_that_hangs_on_status_ends_in_time(suite) -> None:
    """Each case ends at its first unanswered request; after two cases whose status went
    unanswered the remaining status cases are not run; the run writes every report, at the
    default --timeout of 10 s, well within a minute."""
    started = time.monotonic()
    run = suite("--agent", command("status_never_answers"), timeout=120)
    elapsed = time.monotonic() - started
    assert elapsed < 60, f"took {elapsed:.0f} s"
    assert run.code == 1, run.stderr
    stalled = [c for c in run.report["cases"] if "got no answer" in c["message"]]
    assert len(stalled) == 1, [c["id"] for c in stalled]  # the revision detection was the first
    assert stalled[0]["outcome"] == "fail" and stalled[0]["spec"]["source"] == "jsonrpc-2.0"
    last = stalled[0]["transcript"][-1]
    assert last["dir"] == "note" and "no response" in last["frame"], (
        "the transcript ends at the unanswered request"
    )
    not_run = [
        c for c in run.report["cases"] if c["message"].startswith("not run: session/status went unanswered")
    ]
    assert len(not_run) > 20 and all(c["outcome"] == "not-testable" for c in not_run)
    for name in ("report.json", "report.html", "summary.md", "junit.xml", "badge.svg"):
        assert (Path(run.report_dir) / name).is_file(), name
    no_agent_process_left(run)


@pytest.mark.slow
def test_agent_that_floods_status_ends_in_time(suite) -> None:
    """A 30 MB answer to every status: the oversize frame ends that request at once, once per
    case, and the run ends well within two minutes."""
    started = time.monotonic()
    run = suite("--agent", command("status_floods"), timeout=240)
    elapsed = time.monotonic() - started
    assert elapsed < 120, f"took {elapsed:.0f} s"
    assert run.code == 1, run.stderr
    for case in run.report["cases"]:
        notes = [f for f in case["transcript"] if "exceeds the frame limit" in f["frame"]]
        assert len(notes) <= 1, f"{case['id']} read the oversize frame {len(notes)} times"
    flooded = [c for c in run.report["cases"] if "too long to read" in c["message"]]
    assert flooded and flooded[0]["outcome"] == "fail"
    no_agent_process_left(run)


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["half_line", "wrong_id", "huge_line"])
def test_agent_that_stops_answering_is_bounded(suite, agent: str) -> None:
    started = time.monotonic()
    run = suite("--agent", command(agent), *QUICK)
    # Frames with the wrong id or too long to read break the envelope's MUST (1); half a frame
    # and silence leave no MUST case tested (2, untested).
    assert run.code == (2 if agent == "half_line" else 1), (run.report["verdict"], run.stderr[-2000:])
    assert time.monotonic() - started < 60
    messages = [c["message"] for c in run.report["cases"]]
    assert any("got no answer" in m for m in messages), messages
    assert any(m.startswith("not run: ") for m in messages), messages
    no_agent_process_left(run)


@pytest.mark.slow
def test_answering_twice_is_an_envelope_failure(suite) -> None:
    run = suite("--agent", command("answers_twice"), *QUICK)
    assert run.code == 1
    assert any("second response" in c["message"] for c in run.report["cases"])
    no_agent_process_left(run)


@pytest.mark.slow
def test_stderr_flood_keeps_memory_bounded(suite) -> None:
    run = suite("--agent", command("stderr_flood"), *QUICK)
    assert run.code == 0, run.stderr
    assert all(len(c["stderr"]) <= 4000 for c in run.report["cases"])
    no_agent_process_left(run)


@pytest.mark.slow
def test_notification_burst_is_survived_and_truncated(suite) -> None:
    run = suite("--agent", command("notification_burst"), "-k", "after-new")
    case = run.case("status.active.after-new")
    assert case["outcome"] == "pass"
    assert "earlier frames dropped" in case["details"]["transcript_truncated"]
    assert len(case["transcript"]) <= 2000
    no_agent_process_left(run)


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["leaves_child", "ignores_sigterm"])
def test_no_process_outlives_the_run(suite, agent: str) -> None:
    run = suite("--agent", command(agent), "--timeout", "5", "-k", "after-new or after-restart")
    assert run.code == 0, run.stderr
    no_agent_process_left(run)


def test_agent_file_and_terminal_requests_are_refused(suite) -> None:
    probe = Path("/tmp/conformance-must-not-exist.txt")
    probe.unlink(missing_ok=True)
    run = suite("--agent", command("asks_for_files"), "-k", "active-accepts-prompt")
    assert run.code == 0, run.stderr
    frames = [f["frame"] for f in run.case("status.no-side-effects.active-accepts-prompt")["transcript"]]
    for method in ("fs/read_text_file", "fs/write_text_file", "terminal/create"):
        assert any(f'"method":"{method}"' in f.replace(" ", "") for f in frames), method
    assert any('"code":-32601' in f for f in frames)
    assert not probe.exists()
    assert "root:" not in "".join(frames)
    no_agent_process_left(run)


def test_secrets_are_redacted(suite) -> None:
    run = suite(
        "--agent",
        command("leaks_env"),
        "--secret-env",
        "MY_MARKED=hunter2-very-secret",
        "--env",
        "OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwx",
        "-k",
        "capability.status.object",
    )
    assert run.code == 0, run.stderr
    text = json.dumps(run.report) + run.stdout
    assert "hunter2-very-secret" not in text and "sk-abcdefghijklmnop" not in text
    assert "[REDACTED]" in run.report["acp"]["agentInfo"]["title"]


def test_redaction_patterns() -> None:
    from conformance.core.redact import REDACTED, redact

    data = {"a": "Authorization: Bearer abc.def.ghi123", "b": ['{"api_key": "zzzzzzzz"}'], "c": "plain text"}
    out = redact(data, ["plain"])
    assert out["a"].endswith(REDACTED) and "abc.def" not in out["a"]
    assert "zzzzzzzz" not in out["b"][0]
    assert out["c"] == f"{REDACTED} text"


@pytest.mark.slow
def test_ctrl_c_writes_a_partial_report_and_stops_the_agent(tmp_path: Path) -> None:
    import signal
    import subprocess

    report_dir = tmp_path / "r"
    # As a terminal gives it: Ctrl-C's default action. A shell without job control starts
    # background commands (a CI step's `cmd &`, say) with SIGINT ignored, and every process after
    # inherits that; Python then never raises KeyboardInterrupt, and the run just goes on.
    with_ctrl_c = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            with_ctrl_c,
            sys.executable,
            str(ROOT / "runner.py"),
            "--report-dir",
            str(report_dir),
            "--profile",
            "dev",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A run that does not stop is made to print every thread's stack (SIGABRT), for the failure.
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )
    seen = []
    assert proc.stdout is not None
    for line in proc.stdout:  # wait until cases are running: the third one has finished
        seen.append(line)
        if "status.cheap.latency" in line:
            break
    signals = [
        line for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines() if line.startswith("Sig")
    ]
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        rest, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        rest, err = proc.communicate(timeout=10)
        pytest.fail(f"Ctrl-C did not stop the run in 30 s ({signals}); its threads:\n{err[-6000:]}")
    # A bound on a hang, not a timing: the stop itself takes well under a second on an idle
    # machine, and the other workers of a full test run share its two cores.
    assert time.monotonic() - sent < 15, "Ctrl-C must stop the run within 15 seconds"
    assert proc.returncode == 2, err[-2000:]  # incomplete
    report = json.loads((report_dir / "report.json").read_text())
    assert report["incomplete"] is True, "".join(seen) + rest + err
    assert report["verdict"]["label"] == "incomplete"
    assert "interrupted" in err.strip().splitlines()[-1]
    pgids = {c["details"].get("agent_pgid") for c in report["cases"]} - {None}
    assert pgids and all(live_group_members(p) == [] for p in pgids)


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        ("init_error", "answered initialize with error"),
        ("protocol_v9", "protocolVersion 9; this run checks ACP v1"),
    ],
)
def test_bad_initialize_is_a_usage_error_with_a_report(suite, agent: str, message: str) -> None:
    run = suite("--agent", command(agent))
    assert run.code == 2
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("error: cannot certify:") and message in last
    assert run.report["verdict"]["label"] == "error" and message in run.report["fatal"]
    assert "Traceback" not in run.stdout + run.stderr


def test_unwritable_report_dir_and_unknown_spec_are_usage_errors(tmp_path: Path) -> None:
    import subprocess

    blocked = tmp_path / "file"
    blocked.write_text("")
    for args, message in (
        (["--report-dir", str(blocked / "sub")], "cannot be created"),
        (["--spec", "acp-v7"], "invalid choice: 'acp-v7'"),
    ):
        proc = subprocess.run(
            [sys.executable, str(ROOT / "runner.py"), *args], capture_output=True, text=True, cwd=ROOT
        )
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_junit_escapes_agent_strings(suite, tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    run = suite("--agent", command("stdout_banner"), "--strict", *QUICK)  # the banner finding fails
    tree = ET.parse(tmp_path / "report" / "junit.xml")  # parses: nothing the agent sent broke the XML
    assert not list(tree.iter("script"))
    texts = "".join(f.text or "" for f in tree.iter("failure"))
    assert "<script>alert(1)</script>" in texts  # kept as text, escaped in the file
    assert "\x1b" not in texts
    assert run.code == 1


@pytest.mark.slow
def test_ctrl_c_while_a_service_starts_stops_it(tmp_path: Path) -> None:
    """Ctrl-C while the suite waits for a service's first answer (an HTTP server, which outlives
    its closed pipes, unlike a stdio agent): the run ends and the server with it."""
    import signal
    import subprocess

    pid_file = tmp_path / "server.pid"
    server = shlex.join([sys.executable, str(AGENTS / "http_never_answers.py"), str(pid_file)])
    with_ctrl_c = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"
    run = [sys.executable, "-m", "conformance", "--http-cmd", server, "--timeout", "30"]
    proc = subprocess.Popen(
        [sys.executable, "-c", with_ctrl_c, *run, "--report-dir", str(tmp_path / "r")],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    asked = Path(f"{pid_file}.asked")
    while not (pid_file.is_file() and pid_file.read_text() and asked.is_file()):  # the suite waits on it
        assert time.monotonic() < deadline and proc.poll() is None, "the server was never asked"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2 and "interrupted" in err.strip().splitlines()[-1], err[-2000:]
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = os.path.exists(f"/proc/{pid}") and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]
    if alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, "the HTTP server outlived the interrupted run"


def test_ctrl_c_while_the_report_is_written_keeps_the_report(tmp_path: Path) -> None:
    """The cases have run when the report is written, and pytest no longer catches Ctrl-C
    there: held off, the report is written and the run ends with its verdict. (A campaign that
    stopped a round just as it had found a failure was told that no round wrote a report.)"""
    import subprocess

    report_dir = tmp_path / "r"
    ctrl_c_on_write = (
        "import os, signal, sys\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from conformance.reports.report import RunReport\n"
        "write = RunReport.write\n"
        "def interrupted_write(self, *args, **kwargs):\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    return write(self, *args, **kwargs)\n"
        "RunReport.write = interrupted_write\n"
        "from conformance.cli import run\n"
        f"sys.argv = ['runner', '--report-dir', {str(report_dir)!r}, '-k', 'unknown-session-code']\n"
        "run()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", ctrl_c_on_write], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads((report_dir / "report.json").read_text())
    assert report["incomplete"] is False
    assert [c["outcome"] for c in report["cases"]] == ["pass"]
    assert "interrupted" not in done.stderr

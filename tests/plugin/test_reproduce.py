"""Reproductions are complete: each segment is one agent process from its start (its handshake,
and what a case sent before it), restarts start a segment of their own, and piping every
reproduction of a run into a fresh agent gets every request answered and shows the failure again."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conformance.core.transcript import NOTE, RECV, SEND, Entry, reproduction_lines
from conformance.replay.reproduce import pipe_segments
from conformance.runtime import reproduction
from tests.conftest import ROOT, RUNNER, agent_command, python_command


def frame(index: int, direction: str, body: dict, conn: str = "") -> Entry:
    return Entry(index, direction, 0.0, json.dumps(body), conn=conn)


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
HANDSHAKE = (frame(0, SEND, INIT), frame(1, RECV, {"jsonrpc": "2.0", "id": 1, "result": {}}))
# A session made on the first process, then the restart both tests go on from.
BEFORE_RESTART = (
    frame(5, SEND, {"jsonrpc": "2.0", "id": 7, "method": "session/new", "params": {}}),
    frame(6, RECV, {"jsonrpc": "2.0", "id": 7, "result": {"sessionId": "sess_a"}}),
    Entry(7, NOTE, 0.0, "restarting the agent"),
)


def test_a_case_that_restarts_gets_a_second_segment_that_starts_with_initialize() -> None:
    handshake = list(HANDSHAKE)
    entries = [
        *BEFORE_RESTART,
        frame(8, SEND, INIT),
        frame(
            9,
            SEND,
            {"jsonrpc": "2.0", "id": 8, "method": "session/status", "params": {"sessionId": "sess_a"}},
        ),
        frame(10, SEND, {"jsonrpc": "2.0", "id": 9, "method": "session/status"}, conn="B"),
    ]
    segments = reproduction(handshake, entries, ("initialize",), "session/new", [0, 8])  # ACP's
    assert [(s["connection"], s["start"]) for s in segments] == [
        ("main", "fresh"),
        ("main", "restart"),
        ("B", "fresh"),
    ]
    assert all(json.loads(s["lines"][0])["method"] == "initialize" for s in segments[:2])
    assert segments[0]["sessionIds"] == ["sess_a"]
    assert [json.loads(line)["method"] for line in segments[0]["lines"]] == ["initialize", "session/new"]


def test_a_second_agent_process_gets_a_segment_of_its_own_with_its_own_heading() -> None:
    entries = [
        frame(5, SEND, INIT, conn="E"),
        frame(6, RECV, {"jsonrpc": "2.0", "id": 1, "result": {}}, conn="E"),
        frame(7, SEND, {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {}}, conn="E"),
    ]
    segments = reproduction(list(HANDSHAKE), entries, ("initialize",), "session/new", [0], {"E"})
    assert [(s["connection"], s["start"]) for s in segments] == [("main", "fresh"), ("E", "second-process")]
    text = "\n".join(reproduction_lines(segments))
    assert (
        "second agent process's stdin (E; same command and working directory, the first one still running)"
        in text
    )
    connection = reproduction(list(HANDSHAKE), entries, ("initialize",), "session/new", [0])
    assert [(s["connection"], s["start"]) for s in connection] == [("main", "fresh"), ("E", "fresh")]
    assert "on a second connection (E) to the same agent" in "\n".join(reproduction_lines(connection))


EARLY = {
    "jsonrpc": "2.0",
    "id": "before-initialize",
    "method": "session/status",
    "params": {"sessionId": "x"},
}


def test_a_request_the_cases_restart_left_unanswered_is_marked_cut() -> None:
    prompt = {"jsonrpc": "2.0", "id": "turn-7", "method": "session/prompt", "params": {"sessionId": "sess_a"}}
    entries = [
        *BEFORE_RESTART[:2],
        frame(3, SEND, prompt),
        Entry(7, NOTE, 0.0, "restarting"),
        frame(8, SEND, INIT),
    ]
    segments = reproduction(list(HANDSHAKE), entries, ("initialize",), "session/new", [0, 8])
    assert segments[0]["cut"] == ["turn-7"]  # the raw id, as sent: a fresh agent need not answer it
    assert "cut" not in segments[1]
    answered = reproduction(
        list(HANDSHAKE), [*BEFORE_RESTART, frame(8, SEND, INIT)], ("initialize",), None, [0, 8]
    )
    assert all("cut" not in segment for segment in answered)


def test_frames_sent_before_a_restarted_agents_handshake_go_to_its_segment() -> None:
    handshake = list(HANDSHAKE)
    entries = [
        *BEFORE_RESTART,
        frame(8, SEND, EARLY),  # the restarted process's first frame: its start is mark 8
        frame(
            9, RECV, {"jsonrpc": "2.0", "id": "before-initialize", "error": {"code": -32600, "message": "x"}}
        ),
        frame(10, SEND, INIT),
        frame(11, RECV, {"jsonrpc": "2.0", "id": 1, "result": {}}),
        frame(12, SEND, INIT),  # initialize again on the same process: no new segment
    ]
    segments = reproduction(handshake, entries, ("initialize",), "session/new", [0, 8])
    assert [(s["start"], [json.loads(line)["method"] for line in s["lines"]]) for s in segments] == [
        ("fresh", ["initialize", "session/new"]),
        ("restart", ["session/status", "initialize", "initialize"]),
    ]
    assert segments[1]["waits"] == [0, 1]
    # A later case on that process begins with everything it got up to its handshake's answer.
    later = reproduction(entries[3:7], [frame(20, SEND, EARLY)], ("initialize",), None, [0, 8])
    assert [json.loads(line)["method"] for line in later[0]["lines"]] == [
        "session/status",
        "initialize",
        "session/status",
    ]


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


def method_of(line: str) -> object:
    """A line's method; None for a line that is not a JSON object (a case sends broken frames too)."""
    try:
        frame = json.loads(line)
    except ValueError:
        return None
    return frame.get("method") if isinstance(frame, dict) else None


FAILING = [
    ("no_error_data", "status.error.unknown-session-data", '"data":null'),
    ("status_id_case_insensitive", "status.identity.id-variants", '"result":{"status":"active"}'),
    ("active_after_restart", "status.inactive.after-restart", '"result":{"status":"active"}'),
]


def pipe_case(tmp_path: Path, agent: str, case: dict) -> list:
    workdir = tmp_path / case["id"]
    workdir.mkdir()
    command = shlex.split(python_command(str(ROOT / "tests" / "agents" / "acp" / f"{agent}.py")))
    return pipe_segments(case["reproduction"], command, str(workdir), timeout=10)


@pytest.mark.slow
def test_every_reproduction_of_a_run_pipes_into_a_fresh_agent(tmp_path: Path) -> None:
    report = run_with_reproductions(
        tmp_path / "run", "no_error_data", "not sequence and not fuzz and not cheap"
    )
    cases = [c for c in report["cases"] if c["reproduction"]]
    assert len(cases) >= 20, "a run writes a reproduction for every case that talks to the agent"
    for case in cases:
        # A process starts with its handshake, or with what a case sent it before the handshake
        # (transport.jsonrpc.status-before-initialize's early status): the cases after it ran on it.
        for segment in case["reproduction"]:
            methods = [method_of(line) for line in segment["lines"]]
            assert "initialize" in methods, case["id"]
            assert all(m == "session/status" for m in methods[: methods.index("initialize")]), case["id"]
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


# -- reproducing a failure as the run printed it ---------------------------------------------------

ENV_BUG = agent_command("harness/env_status_loads")
LOADS = "status.no-side-effects.inactive-stays-inactive"
SEQ = "sequence.status.model-based"


def printed(command: str, *more: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A command as a run printed it, run as a user runs it (`session-status-conformance` is this
    suite's command line)."""
    words = shlex.split(command)
    assert words[0] == "session-status-conformance", command
    return subprocess.run(
        [sys.executable, str(RUNNER), *words[1:], *more],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )


@pytest.mark.slow
def test_a_bug_that_needs_an_env_variable_still_fails_in_replay_and_reproduce(tmp_path: Path) -> None:
    """The run's --env is recorded: the printed `replay` (a sequence's minimal steps) and
    `reproduce` (a case run again) start the agent with it and say STILL FAILING; given another
    value of the variable, the same commands say FIXED, so the variable is what they carried."""
    from tests.conftest import run_suite

    run = run_suite(
        tmp_path / "run", "--agent", ENV_BUG, "--env", "AGENT_BUG=load", "-k", f"{LOADS} or model-based"
    )
    assert run.outcomes == {LOADS: "fail", SEQ: "fail"}, run.stderr[-2000:]
    commands = {case_id: run.case(case_id)["reproduce"] for case_id in (LOADS, SEQ)}
    assert commands[SEQ].startswith("session-status-conformance replay ")
    assert commands[LOADS].startswith("session-status-conformance reproduce ")
    for case_id, command in commands.items():
        assert f"reproduce: {command}" in run.stdout, f"{case_id}: the terminal shows the command whole"
        again = printed(command)
        assert again.returncode == 1 and "STILL FAILING" in again.stdout, again.stdout[-2000:] + again.stderr
        assert "AGENT_BUG=load" in again.stdout, "it says what it started the agent with"
        fixed = printed(command, "--env", "AGENT_BUG=off")
        assert fixed.returncode == 0 and "FIXED" in fixed.stdout, fixed.stdout[-2000:] + fixed.stderr


@pytest.mark.slow
def test_a_redacted_secret_is_asked_for_never_left_out(tmp_path: Path) -> None:
    """A variable named like a secret is redacted in every file the run writes; replaying without
    it is refused in one line naming it (never FIXED), and it can be given again or come from the
    environment."""
    import os

    from tests.conftest import run_suite

    run = run_suite(
        tmp_path / "run", "--agent", ENV_BUG, "--env", "AGENT_BUG_TOKEN=load-sk-0123456789", "-k", LOADS
    )
    assert run.outcomes == {LOADS: "fail"}, run.stderr[-2000:]
    written = (tmp_path / "run" / "report.json").read_text()
    assert "AGENT_BUG_TOKEN=[REDACTED]" in written and "load-sk-0123456789" not in written
    command = run.case(LOADS)["reproduce"]
    env = {k: v for k, v in os.environ.items() if k != "AGENT_BUG_TOKEN"}
    refused = printed(command, env=env)
    assert refused.returncode == 2 and "FIXED" not in refused.stdout, refused.stdout + refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith("error: cannot reproduce: ") and "AGENT_BUG_TOKEN" in line, line
    given = printed(command, "--secret-env", "AGENT_BUG_TOKEN=load-sk-0123456789", env=env)
    assert given.returncode == 1 and "STILL FAILING" in given.stdout, given.stdout[-2000:] + given.stderr
    inherited = printed(command, env=env | {"AGENT_BUG_TOKEN": "load-sk-0123456789"})
    assert inherited.returncode == 1 and "STILL FAILING" in inherited.stdout, inherited.stderr


def failure_section(stdout: str, case_id: str) -> list[str]:
    """The lines the terminal shows for one failure."""
    lines = stdout.splitlines()
    start = lines.index(next(line for line in lines if line.startswith(f"{case_id} [")))
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith(("___", "===")) or not lines[i]),
        len(lines),
    )
    return lines[start:end]


def shown_segments(section: list[str]) -> list[list[str]]:
    """The lines to send that a failure shows, one list per heading (`# pipe into …`)."""
    segments: list[list[str]] = []
    for line in section:
        if line.startswith("    # "):
            segments.append([])
        elif line.startswith("    ") and segments:
            segments[-1].append(line[4:])
    return segments


@pytest.mark.slow
@pytest.mark.parametrize(
    ("agent", "case_id", "shows"),
    [
        ("status_loads_inactive", LOADS, None),  # its sessions are the agent's: the command only
        ("no_error_data", "status.error.unknown-session-data", '"data":null'),  # ids the suite makes
    ],
)
def test_what_a_failure_shows_works_as_printed_on_an_agent_with_its_own_ids(
    tmp_path: Path, agent: str, case_id: str, shows: str | None
) -> None:
    """The reference makes a random id for every session: lines naming the ids of the run's
    agent would ask a fresh one about sessions it never made. So a failure shows its one command
    (which maps them) and, only where they work as printed, the lines: piped as they are into a
    fresh agent, every request is answered and the failure shows again."""
    from tests.conftest import run_suite

    run = run_suite(tmp_path / "run", "--agent", agent_command(agent), "-k", case_id)
    assert run.outcomes[case_id] == "fail", run.stderr[-2000:]
    section = failure_section(run.stdout, case_id)
    (command,) = [line.removeprefix("  reproduce: ") for line in section if line.startswith("  reproduce: ")]
    again = printed(command)
    assert again.returncode == 1 and "STILL FAILING" in again.stdout, again.stdout[-2000:] + again.stderr
    segments = shown_segments(section)
    if shows is None:
        assert segments == [], "lines that name the run's session ids are not shown"
        return
    assert segments, "lines that work as printed are shown"
    workdir = tmp_path / "fresh"
    workdir.mkdir()
    command_words = shlex.split(python_command(str(ROOT / "tests" / "agents" / "acp" / f"{agent}.py")))
    exchanges = pipe_segments([{"lines": lines} for lines in segments], command_words, str(workdir))
    assert all(not e.unanswered for e in exchanges), [e.unanswered for e in exchanges]
    assert shows in "".join(line for e in exchanges for line in e.received)


@pytest.mark.slow
def test_a_deterministic_failure_keeps_only_the_requests_that_show_it(tmp_path: Path) -> None:
    """Status loads the inactive session at its first call: the case stops at the answer that
    shows it (two status calls, not twenty), and piped into a fresh agent the reproduction still
    shows the session turn active."""
    report = run_with_reproductions(tmp_path / "run", "status_loads_inactive", LOADS)
    case = next(c for c in report["cases"] if c["id"] == LOADS)
    assert case["outcome"] == "fail", case["message"]
    sent = [json.loads(line) for segment in case["reproduction"] for line in segment["lines"]]
    assert [f.get("method") for f in sent].count("session/status") == 2, [f.get("method") for f in sent]
    received = "".join(
        line for e in pipe_case(tmp_path, "status_loads_inactive", case) for line in e.received
    )
    assert '"result":{"status":"inactive"}' in received and '"result":{"status":"active"}' in received

"""runner.py as a user meets it: exit codes, one-line messages, options passed through."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET

import pytest

from tests.conftest import RUNNER, agent_command


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        ("no-such-agent-binary --acp", "agent command not found: 'no-such-agent-binary' is not on PATH"),
        ("./tests/agents/acp/_base.py", "agent command is not executable"),
        ("/nonexistent/agent", "does not exist"),
        ("''", "--agent is empty"),
        ("python 'unbalanced", "cannot be split into words"),
    ],
)
def test_bad_agent_command_is_a_usage_error(suite, agent: str, message: str) -> None:
    run = suite("--agent", agent)
    assert run.code == 2
    assert run.stderr.strip().splitlines() == [f"error: {run.stderr.strip().removeprefix('error: ')}"]
    assert message in run.stderr
    assert "Traceback" not in run.stderr + run.stdout


def test_agent_that_dies_before_initialize_is_a_usage_error(suite) -> None:
    run = suite(
        "--agent", f"{sys.executable} -c 'import sys; sys.stderr.write(\"no api key\\n\"); sys.exit(4)'"
    )
    assert run.code == 2
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("error: cannot certify: the agent exited with code 4 before answering initialize")
    assert "no api key" in last
    assert "Traceback" not in run.stderr + run.stdout


def test_malformed_env_is_a_usage_error(suite) -> None:
    run = suite("--env", "NOEQUALS")
    assert run.code == 2
    assert "is not KEY=VALUE" in run.stdout + run.stderr


def test_missing_cwd_is_a_usage_error(suite, tmp_path) -> None:
    run = suite("--cwd", str(tmp_path / "nope"))
    assert run.code == 2
    assert "is not a directory" in run.stdout + run.stderr


def test_auth_env_and_timeout_reach_the_agent(suite) -> None:
    run = suite(
        "--agent",
        agent_command("capability_true"),
        "--auth-method",
        "agent-login",
        "--env",
        "CONFORMANCE_TEST=1",
        "--timeout",
        "7",
        "-k",
        "capability.status.object",
    )
    frames = [
        json.loads(f["frame"])
        for f in run.case("capability.status.object")["transcript"]
        if f["dir"] == "send"
    ]
    assert [f["method"] for f in frames] == ["initialize", "authenticate"]
    assert frames[1]["params"] == {"methodId": "agent-login"}
    assert run.report["options"]["timeout"] == 7.0


def test_junit_carries_level_and_sentence(suite, tmp_path) -> None:
    run = suite("--agent", agent_command("no_error_data"), "-k", "unknown-session")
    assert run.code == 1
    tree = ET.parse(tmp_path / "report" / "junit.xml")
    cases = {tc.get("name"): tc for tc in tree.iter("testcase")}
    failing = cases["status.error.unknown-session-data"]
    props = {p.get("name"): p.get("value") for p in failing.iter("property")}
    assert props["level"] == "MUST"
    assert props["spec"] is not None and "sessionId" in props["spec"]
    assert failing.find("failure") is not None
    assert cases["status.error.unknown-session-code"].find("failure") is None


@pytest.mark.parametrize(
    ("args", "case"),
    [
        (("--agent", "{python} conformance/reference/acp/agent.py"), "status.error.unknown-session-code"),
        (("--mcp-cmd", "{python} conformance/reference/mcp/server.py"), "heartbeat.args.valid-call-succeeds"),
        (
            ("--http-cmd", "{python} conformance/reference/http/service.py --listen 127.0.0.1:0"),
            "http.status.shape",
        ),
    ],
)
def test_a_reference_runs_from_its_file_path(direct, args: tuple[str, str], case: str) -> None:
    """The README names the references by file: `python conformance/reference/acp/agent.py` must
    start as `python -m conformance.reference.acp.agent` does (no "attempted relative import")."""
    flag, command = args
    run = direct(flag, command.format(python=sys.executable), cases=[case])
    assert run.outcomes == {case: "pass"}, run.diff({case: "pass"})


def test_a_run_that_selects_nothing_leaves_no_report_folder(tmp_path) -> None:
    from tests.conftest import run_suite

    run = run_suite(tmp_path / "report", "-k", "no-such-case")
    assert run.code == 2 and "no conformance case selected" in run.stderr.splitlines()[-1]
    assert "levels: must, should, may, robustness" in run.stderr
    assert not (tmp_path / "report").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--timeout", "0"), "--timeout 0.0 must be a positive number of seconds"),
        (("--report-dir", "/proc/conformance-x"), "cannot be created"),
    ],
)
def test_the_last_line_is_the_actual_message(tmp_path, args: tuple[str, str], message: str) -> None:
    import subprocess

    from tests.conftest import RUNNER

    proc = subprocess.run([sys.executable, str(RUNNER), *args], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and message in last, proc.stderr[-800:]


def test_a_script_without_a_shebang_says_what_to_do(suite, tmp_path) -> None:
    script = tmp_path / "agent.py"
    script.write_text("print('an agent without a #! line')\n")
    script.chmod(0o755)
    run = suite("--agent", str(script))
    assert run.code == 2
    last = run.stderr.strip().splitlines()[-1]
    assert "the system cannot run it" in last and "#!/usr/bin/env python3" in last, last
    assert "Errno 8" not in run.stderr + run.stdout


@pytest.mark.parametrize("value", ["0", "-1"])
def test_a_usage_error_is_said_once_as_the_last_line(suite, value: str) -> None:
    run = suite("--timeout", value)
    assert run.code == 2
    assert (
        run.stderr.strip().splitlines()[-1].startswith(f"error: --timeout {float(value)} must be a positive")
    )
    said = [line for line in (run.stdout + run.stderr).splitlines() if "must be a positive" in line]
    assert len(said) == 1, said


def test_a_mistyped_script_is_named_where_the_user_typed_it(tmp_path) -> None:
    """`python my_agnt.py`: said before anything starts, relative to where it was typed (not the
    sandbox the agent would run in), with the file meant; and no report folder is left."""
    import subprocess

    from tests.conftest import RUNNER

    (tmp_path / "my_agent.py").write_text("")
    proc = subprocess.run(
        [sys.executable, str(RUNNER), "--agent", "python my_agnt.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert line == (
        f"error: agent command names a file that does not exist: 'my_agnt.py' (in {tmp_path}); "
        "did you mean 'my_agent.py'?"
    ), line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my_agent.py"], "no report folder is left"


def test_under_pytest_too_a_mistyped_script_leaves_no_report_folder(tmp_path) -> None:
    import subprocess

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--pyargs",
            "conformance.cases",
            "--agent",
            "python my_agnt.py",
            "-q",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR
    assert "'my_agnt.py' (in " in proc.stderr, proc.stderr
    assert list(tmp_path.iterdir()) == [], "no report folder is left"


def test_a_script_in_the_agents_cwd_is_found_there(tmp_path) -> None:
    """With --cwd, the agent runs there: a script named relative to it is not a typo."""
    from conformance.core.config import agent_command_problem

    (tmp_path / "agent.py").write_text("")
    assert agent_command_problem(f"{sys.executable} agent.py", cwd=str(tmp_path)) is None
    assert "does not exist" in (agent_command_problem(f"{sys.executable} agent.py") or "")
    assert agent_command_problem(f"{sys.executable} -m conformance.reference.acp.agent") is None


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--agnet", "my-agent"], "error: unknown option --agnet (did you mean --agent?)"),
        (["--strict-shuold"], "error: unknown option --strict-shuold (did you mean --strict?)"),
        (["replay", "x.json", "--agnet", "a"], "error: unknown option --agnet (did you mean --agent?)"),
    ],
)
def test_an_unknown_option_is_one_line_with_did_you_mean(args: list[str], line: str) -> None:
    import subprocess

    from tests.conftest import RUNNER

    proc = subprocess.run([sys.executable, str(RUNNER), *args], capture_output=True, text=True)
    assert proc.returncode == 2
    (said,) = proc.stderr.strip().splitlines()
    assert said.startswith(line) and said.endswith("--help lists the options"), said


def test_help_shows_readable_placeholders_and_the_revisions_of_each_target() -> None:
    from conformance.cli import build_parser
    from conformance.core import revisions

    parser = build_parser()
    for action in parser._actions:
        if action.option_strings and action.nargs != 0 and action.choices is None:
            assert action.metavar is not None, f"{action.option_strings[0]} shows its dest as a placeholder"
    text = " ".join(parser.format_help().split())
    for target in ("acp", "mcp", "http"):
        assert f"{target} {', '.join(revisions.available(target))}" in text, target


def test_hypothesis_files_go_to_the_users_cache_not_the_working_directory(tmp_path) -> None:
    """Hypothesis keeps a cache in `.hypothesis/` of the working directory: a run puts it in the
    user's cache (shared by runs), and leaves the directory it was started in as it was."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    proc = subprocess.run(
        [
            sys.executable,
            str(RUNNER),
            "-k",
            "fuzz.status.params",
            "--profile",
            "smoke",
            "--report-dir",
            "out",
            "-q",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "out"]
    assert (tmp_path / "cache" / "session-status-conformance" / "hypothesis" / "unicode_data").is_dir()
    assert not (tmp_path / "out" / ".hypothesis").exists()

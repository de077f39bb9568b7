"""What a CI user meets on a second day, said where it happens: a bare file name as the agent
command, a recorded command naming a runner's paths, an agent that prints only text."""

from __future__ import annotations

from pathlib import Path

from conformance.core.config import agent_command_problem
from conformance.core.transcript import RECV, SEND, Entry, printed_instead


def test_a_bare_file_name_says_how_to_run_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text("")
    (tmp_path / "serve").write_text("")
    problem = agent_command_problem("agent.py --fast")
    assert problem == (
        "agent command not found: 'agent.py' is not on PATH, but it is a file here: pass 'python agent.py --fast' "
        "(or './agent.py --fast' if it is executable, with a #! line)"
    )
    assert "pass './serve' (it must be executable)" in str(agent_command_problem("serve"))
    assert "full path" in str(agent_command_problem("no-such-file.py"))


def test_a_command_recorded_on_a_runner_says_that_the_option_overrides_it(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for recorded in (
        "python /home/runner/work/repo/agent.py",
        "/home/runner/work/repo/.venv/bin/agent --acp",
    ):
        problem = str(agent_command_problem(recorded))
        assert problem.endswith("pass --agent CMD to start the agent as it runs here"), problem
    mcp = str(agent_command_problem("node /home/runner/server.js", "--mcp-cmd"))
    assert "pass --mcp-cmd CMD" in mcp
    assert "another machine" not in str(agent_command_problem("python agnt.py"))  # typed here: no hint


def entries(*lines: str, direction: str = RECV) -> list[Entry]:
    return [Entry(n, direction, 0.0, line) for n, line in enumerate(lines)]


def test_what_an_agent_printed_instead_of_json() -> None:
    said = printed_instead(entries("Starting \x1b[1mserver\x1b[0m\t" + "y" * 300, "ready"))
    assert said.startswith("it printed 2 lines on stdout, none of them JSON")
    assert "the first: 'Starting \\x1b[1mserver\\x1b[0m\\tyyy" in said
    assert said.endswith("y…'") and len(said) < 300
    assert printed_instead(entries("hello")).startswith("it printed 1 line on")
    assert printed_instead(entries("banner", '{"jsonrpc": "2.0", "id": 0, "result": {}}')) == ""
    assert printed_instead(entries('{"jsonrpc": "2.0"}', direction=SEND)) == ""
    assert printed_instead([]) == ""


def test_a_junit_failure_message_carries_the_reason() -> None:
    from conformance.reports.junit import failure_message

    case = {
        "id": "status.no-side-effects.twins-later",
        "level": "MUST",
        "outcome": "fail",
        "rule": "updated-at",
        "message": "status changed updatedAt\nof the session",
        "expected": "unchanged",
        "observed": {"updatedAt": "2026-12-06T05:00:00Z", "noise": "z" * 500},
    }
    message = failure_message(case)
    assert message.startswith(
        "status.no-side-effects.twins-later [MUST] updated-at: status changed updatedAt of the session | "
        'expected: unchanged; seen: {"updatedAt": "2026-12-06T05:00:00Z"'
    )
    assert "\n" not in message and len(message) < 500
    assert (
        failure_message({"id": "x", "level": "SHOULD", "outcome": "error", "message": ""})
        == "x [SHOULD]: error"
    )


def test_the_cost_line_says_why_so_many_prompts_and_what_bounds_them() -> None:
    from conformance.reports.text import prompts_why

    cases = [
        (612, "sequence.status.model-based"),
        (2, "status.active.during-turn"),
        (0, "status.result.shape"),
    ]
    why = prompts_why(cases, limited=False)
    assert why.startswith(
        "; 612 by sequence.status.model-based, which prompts for its time budget (--profile)"
    )
    assert "fast turns send many" in why and why.endswith("--max-prompts N caps them")
    assert "--max-prompts" not in prompts_why(cases, limited=True)
    assert prompts_why(cases[1:], limited=False) == ""  # a few scripted prompts need no explaining

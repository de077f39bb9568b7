#!/usr/bin/env python3
"""Certify an agent's session/status: run the conformance cases and print a verdict.

    python runner.py                                  # certify the embedded reference agent
    python runner.py --agent "node my-agent.js"       # certify your agent (stdio)
    python runner.py --agent "my-agent" -k unknown    # only cases whose id matches
    python runner.py --agent "my-agent" -- -n auto    # anything after -- goes to pytest
    python runner.py replay reports/<run>/replays/sequence.status.model-based.replay.json
    python runner.py matrix reports/*/report.json -o matrix.html   # agents side by side
    python runner.py reproduce reports/<run>/report.json CASE_ID   # pipe a case's reproduction into a fresh agent

Exit codes: 0 conformant, 1 non-conformant, 2 usage or harness error, 3 not implemented.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

USAGE_ERROR = 2


def spec_revisions() -> list[str]:
    """The revision files, found without importing the suite (pytest must import it first)."""
    import importlib.util

    spec = importlib.util.find_spec("cases")
    if spec is None or spec.origin is None:
        return []
    return sorted(p.stem for p in (Path(spec.origin).parent / "revisions").glob("*.toml"))


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python runner.py",
        description="Certify an ACP agent's session/status (or, with --mcp-cmd / --mcp-url, an MCP server's "
        "session_heartbeat tool; with --http-url / --http-cmd, a GET /sessions/{id}/status service such as "
        "AgentScope) against the spec.",
        epilog="Exit codes: 0 conformant, 1 non-conformant, 2 usage or harness error, 3 not implemented. "
        "Subcommands: 'python runner.py matrix REPORT.json… -o matrix.html' compares runs side by side; "
        "'python runner.py replay FILE.replay.json [--agent CMD]' re-sends a recorded failing sequence.",
    )
    p.add_argument(
        "--agent",
        help="command that starts your agent on stdio, e.g. 'node agent.js' (default: the embedded reference agent)",
    )
    p.add_argument(
        "--transport",
        choices=["stdio", "websocket", "http"],
        default="stdio",
        help="stdio (default), websocket, or http (ACP Streamable HTTP): --agent starts a server that prints "
        "its URL on stdout (two connections to one agent: the connection cases need it)",
    )
    p.add_argument(
        "--agent-url",
        metavar="URL",
        help="an agent already listening: ws://… (WebSocket) or http://… (Streamable HTTP)",
    )
    p.add_argument(
        "--protocol",
        type=int,
        choices=[1, 2],
        default=1,
        help="ACP protocol version: 1 (default) or 2 (initialize with v2; adds the foreground-state cases)",
    )
    p.add_argument(
        "--cwd",
        help="working directory for the agent and its sessions (default: a sandbox in the report dir)",
    )
    p.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="K=V",
        help="extra environment variable for the agent (repeatable)",
    )
    p.add_argument(
        "--secret-env",
        action="append",
        default=[],
        metavar="K=V",
        help="like --env, and the value is redacted from reports (names with KEY/TOKEN/SECRET are anyway)",
    )
    p.add_argument(
        "--run-budget",
        type=float,
        default=1800.0,
        help="seconds for the whole run; later cases are reported as not run",
    )
    p.add_argument(
        "--auth-method",
        metavar="ID",
        help="call authenticate with this method id after initialize (e.g. openai-api-key)",
    )
    p.add_argument(
        "--timeout", type=float, default=10.0, help="seconds to wait for each response (default 10)"
    )
    p.add_argument(
        "--report-dir", help="where report.json and junit.xml go (default reports/<agent>-<timestamp>/)"
    )
    p.add_argument("--strict", action="store_true", help="count broken SHOULDs (warnings) as failures")
    p.add_argument(
        "--expected-failures",
        metavar="FILE",
        help="baseline of known failures (TOML or YAML): listed failures don't fail the run, new ones and "
        "entries that now pass do",
    )
    p.add_argument(
        "--update-expected-failures",
        action="store_true",
        help="write this run's failures to the --expected-failures file, keeping existing reasons",
    )
    p.add_argument("-k", dest="keyword", metavar="EXPR", help="only cases whose id matches EXPR (pytest -k)")
    p.add_argument(
        "-m",
        dest="markexpr",
        metavar="EXPR",
        help="only cases at these levels: must, should, may (pytest -m)",
    )
    p.add_argument(
        "-n", dest="numprocesses", metavar="N", help="run cases on N workers (pytest-xdist), e.g. auto"
    )
    p.add_argument("--alluredir", help="also write Allure results to this folder")
    p.add_argument(
        "--spec",
        choices=["auto", *spec_revisions()],
        default="auto",
        help="spec revision to check (auto, the default: the revision whose words the agent answers for a new "
        "session; rfd-2026-10-26: active / inactive; acp-unstable-2026-11: open / saved)",
    )
    p.add_argument(
        "--profile",
        choices=["ci", "dev", "thorough"],
        default="ci",
        help="budget of the sequence and fuzz cases: ci (derandomized, bounded; default), dev, thorough",
    )
    p.add_argument("--seed", type=int, help="seed of the sequence and fuzz cases (printed by every run)")
    p.add_argument("-q", "--quiet", action="store_true", help="one character per case instead of one line")
    p.add_argument("--debug", action="store_true", help="show tracebacks of harness errors")
    add_target_arguments(p)
    p.add_argument("pytest_args", nargs="*", help="after --: arguments passed to pytest as-is")
    return p


# Options of the other targets: (flag, argparse keywords); forwarded to pytest under the same flag.
TARGET_OPTIONS: list[tuple[str, dict[str, Any]]] = [
    (
        "--target",
        {"choices": ["acp", "mcp", "http"], "help": "what to certify (default acp; --mcp-* imply mcp)"},
    ),
    (
        "--mcp-cmd",
        {
            "metavar": "CMD",
            "help": "command that starts your MCP server on stdio (with --transport http: "
            "a server that prints its URL)",
        },
    ),
    (
        "--mcp-url",
        {"metavar": "URL", "help": "an MCP server already listening (Streamable HTTP), e.g. http://host/mcp"},
    ),
    (
        "--header",
        {
            "action": "append",
            "default": [],
            "metavar": "K=V",
            "help": "HTTP header of caller A, e.g. 'Authorization=Bearer …' (repeatable; redacted in reports)",
        },
    ),
    (
        "--other-header",
        {
            "action": "append",
            "default": [],
            "metavar": "K=V",
            "help": "HTTP header of caller B, another principal (the access cases need it)",
        },
    ),
    (
        "--instruct-cmd",
        {
            "metavar": "CMD",
            "help": "operator command that enqueues a human instruction, with "
            "{sessionId} and {text} (no shell), e.g. 'myctl instruct {sessionId} {text}'",
        },
    ),
    (
        "--instruct-url",
        {
            "metavar": "URL",
            "help": 'operator endpoint that enqueues one: POSTed {"sessionId", "text"}; '
            "{sessionId} and {baseUrl} are replaced",
        },
    ),
    (
        "--instructions-path",
        {
            "metavar": "POINTER",
            "help": "JSON Pointer to the instruction list in a heartbeat result "
            "(default: /instructions or /pendingInstructions)",
        },
    ),
    (
        "--cursor-path",
        {
            "metavar": "POINTER",
            "help": "JSON Pointer to the next-page cursor (default: /nextCursor, "
            "/instructionCursor or /nextInstructionCursor)",
        },
    ),
]


HTTP_OPTIONS: list[tuple[str, dict[str, Any]]] = [
    (
        "--http-url",
        {"metavar": "URL", "help": "base URL of a service with GET /sessions/{id}/status (e.g. AgentScope)"},
    ),
    (
        "--http-cmd",
        {"metavar": "CMD", "help": "command that starts such a service and prints its http:// URL"},
    ),
    (
        "--user-id",
        {"metavar": "ID", "help": "x-user-id of the caller (default: a fresh id; the header is trusted)"},
    ),
    (
        "--other-user-id",
        {"metavar": "ID", "help": "x-user-id of another owner, for the ownership cases (default: fresh)"},
    ),
    (
        "--agent-id",
        {"metavar": "ID", "help": "agent of an existing session, for services the suite cannot drive"},
    ),
    (
        "--session-id",
        {"metavar": "ID", "help": "an existing session of --user-id, for services the suite cannot drive"},
    ),
]


def add_target_arguments(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("MCP target (session_heartbeat)")
    for flag, keywords in TARGET_OPTIONS:
        group.add_argument(flag, **keywords)
    group = p.add_argument_group("HTTP target (GET /sessions/{id}/status)")
    for flag, keywords in HTTP_OPTIONS:
        group.add_argument(flag, **keywords)


def target_argv(args: argparse.Namespace) -> list[str]:
    argv: list[str] = []
    for flag, _ in TARGET_OPTIONS + HTTP_OPTIONS:
        value = getattr(args, flag.lstrip("-").replace("-", "_"))
        for item in value if isinstance(value, list) else [value]:
            if item is not None:
                argv += [flag, item]
    return argv


def check_agent_command(agent: str | None, option: str = "--agent") -> str | None:
    """A one-line problem with the agent command, or None if it can be started."""
    if agent is None:
        return None
    try:
        words = shlex.split(agent)
    except ValueError as exc:
        return f"{option} {agent!r} cannot be split into words ({exc}); quote it as you would in a shell"
    if not words or not words[0].strip():
        return f"{option} is empty: pass the command that starts it, e.g. {option} 'node server.js'"
    exe = words[0]
    if os.sep in exe:
        path = Path(exe)
        if not path.exists():
            return f"agent command not found: {exe!r} does not exist"
        if path.is_dir() or not os.access(path, os.X_OK):
            return f"agent command is not executable: {exe!r} (chmod +x it, or prefix the interpreter, e.g. 'python {exe}')"
    elif shutil.which(exe) is None:
        return f"agent command not found: {exe!r} is not on PATH (install it, or pass its full path)"
    return None


def check_cwd(path: str | None) -> str | None:
    if path is not None and not Path(path).is_dir():
        return f"--cwd {path!r} is not a directory: create it or pass an existing one"
    return None


def check_env(pairs: list[str]) -> str | None:
    for pair in pairs:
        key, sep, _ = pair.partition("=")
        if not sep or not key or any(c.isspace() for c in key):
            return f"--env {pair!r} is not KEY=VALUE: write it as --env NAME=value"
    return None


def check_target(args: argparse.Namespace) -> str | None:
    if args.agent_url is not None:
        if args.agent is not None:
            return "pass --agent CMD or --agent-url URL, not both"
        if not re.match(r"^(wss?|https?)://\S+$", args.agent_url):
            return f"--agent-url {args.agent_url!r} is not a ws://, wss://, http:// or https:// URL"
    return None


def check_baseline(args: argparse.Namespace) -> str | None:
    if args.update_expected_failures and not args.expected_failures:
        return "--update-expected-failures needs --expected-failures FILE (the file to write)"
    path = Path(args.expected_failures) if args.expected_failures else None
    if path is None or (args.update_expected_failures and not path.exists()):
        return None
    from conformance.baseline import load_baseline
    from conformance.config import UsageError

    try:
        load_baseline(path)
    except UsageError as exc:
        return str(exc)
    return None


class _WithoutPytestExitLine:
    """stderr while pytest runs: pytest repeats an exit's message as 'Exit: …'; the runner
    prints it once, as 'error: …'."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        return len(text) if text.startswith("Exit: ") else self._inner.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def check_report_dir(path: str | None) -> str | None:
    if path is None:
        return None
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
        probe = Path(path) / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        return f"--report-dir {path!r} is not writable ({exc.strerror}): pass a folder you can write to"
    return None


def pytest_argv(args: argparse.Namespace) -> list[str]:
    import importlib.util

    # Found, not imported: pytest must import the cases itself (assertion rewriting, one registry).
    spec = importlib.util.find_spec("cases")
    if spec is None or spec.origin is None:
        raise SystemExit(
            "error: the 'cases' package is not installed; run pip install -e . in the suite's folder"
        )
    cases_dir = Path(spec.origin).parent
    argv = [
        str(cases_dir),
        f"--rootdir={cases_dir.parent}",
        "-p",
        "no:cacheprovider",
        # The runner may import the suite before pytest does (to check a baseline file); the
        # plugin's own modules need no assertion rewriting.
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        "-q" if args.quiet else "-v",
    ]
    if args.agent is not None:
        argv += ["--agent", args.agent]
    if args.agent_url is not None:
        argv += ["--agent-url", args.agent_url]
    argv += ["--transport", args.transport, "--protocol", str(args.protocol)]
    if args.cwd:
        argv += ["--cwd", args.cwd]
    for pair in args.env:
        argv += ["--env", pair]
    for pair in args.secret_env:
        argv += ["--secret-env", pair]
    argv += ["--run-budget", str(args.run_budget)]
    if args.auth_method:
        argv += ["--auth-method", args.auth_method]
    argv += ["--timeout", str(args.timeout)]
    if args.report_dir:
        argv += ["--report-dir", args.report_dir]
    if args.strict:
        argv.append("--strict-should")
    if args.expected_failures:
        argv += ["--expected-failures", args.expected_failures]
    if args.update_expected_failures:
        argv.append("--update-expected-failures")
    if args.keyword:
        argv += ["-k", args.keyword]
    if args.markexpr:
        argv += ["-m", args.markexpr]
    if args.numprocesses:
        argv += ["-n", args.numprocesses]
    if args.alluredir:
        argv += ["--alluredir", args.alluredir]
    argv += ["--profile", args.profile, "--spec", args.spec]
    if args.seed is not None:
        argv += ["--seed", str(args.seed)]
    return argv + target_argv(args) + list(args.pytest_args)


def replay_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="python runner.py replay",
        description="Re-send a recorded failing sequence to an agent; prints FIXED (exit 0) or STILL FAILING (exit 1).",
    )
    p.add_argument("file", help="a replay file (reports/<run>/replays/*.replay.json)")
    p.add_argument("--agent", help="the agent to replay against (default: the command recorded in the file)")
    p.add_argument("--cwd", help="working directory for the agent (default: a fresh temporary directory)")
    p.add_argument("--env", action="append", default=[], metavar="K=V")
    p.add_argument("--timeout", type=float, default=10.0)
    args = p.parse_args(argv)
    problem = check_agent_command(args.agent)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return USAGE_ERROR
    from conformance.replay_run import replay_file

    return replay_file(Path(args.file), agent=args.agent, cwd=args.cwd, env=args.env, timeout=args.timeout)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["replay"]:
        return replay_main(argv[1:])
    if argv[:1] == ["matrix"]:
        from conformance.matrix import main as matrix_main

        return matrix_main(argv[1:])
    if argv[:1] == ["reproduce"]:
        from conformance.reproduce import main as reproduce_main

        return reproduce_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    problem = (
        check_agent_command(args.agent)
        or check_agent_command(args.mcp_cmd, "--mcp-cmd")
        or check_agent_command(args.http_cmd, "--http-cmd")
        or check_report_dir(args.report_dir)
        or check_cwd(args.cwd)
        or check_env(args.env + args.secret_env)
        or check_target(args)
    )
    if not problem:
        problem = check_baseline(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return USAGE_ERROR
    import pytest

    stderr = sys.stderr
    sys.stderr = _WithoutPytestExitLine(stderr)  # type: ignore[assignment]
    try:
        code = pytest.main(pytest_argv(args))
    finally:
        sys.stderr = stderr
    from conformance import plugin

    last = plugin.LAST_RUN
    if last.get("verdict") is not None:
        print(f"{last['line']} — report: {last['report']}", file=sys.stderr)
        return last["exit_code"]
    if last.get("message"):
        print(f"error: {last['message']}", file=sys.stderr)
    elif code == pytest.ExitCode.USAGE_ERROR or code == pytest.ExitCode.NO_TESTS_COLLECTED:
        print(
            "error: usage error (see the message above); python runner.py --help lists the options",
            file=sys.stderr,
        )
    elif code == pytest.ExitCode.INTERRUPTED:
        print("error: the run was interrupted before a verdict", file=sys.stderr)
    else:
        print(f"error: pytest ended with code {int(code)} and no verdict", file=sys.stderr)
    return USAGE_ERROR


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(USAGE_ERROR)
    except Exception as exc:
        if "--debug" in sys.argv:
            raise
        print(f"error: {type(exc).__name__}: {exc} (run with --debug for the traceback)", file=sys.stderr)
        sys.exit(USAGE_ERROR)

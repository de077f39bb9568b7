"""The plugin's command-line options (the "session/status conformance" group of pytest --help)."""

from __future__ import annotations

import pytest

from . import revisions

__all__ = ["pytest_addoption"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("session-status-conformance", "session/status conformance (ACP)")
    group.addoption(
        "--agent",
        default=None,
        help="command that starts the agent on stdio (split like a shell, never run by one); default: the embedded reference agent",
    )
    group.addoption(
        "--transport",
        dest="agent_transport",
        default="stdio",
        choices=["stdio", "websocket", "http"],
        help="stdio (default), websocket or http (Streamable HTTP): --agent is a server command that prints "
        "its URL on stdout",
    )
    group.addoption(
        "--protocol",
        dest="agent_protocol",
        type=int,
        default=1,
        choices=[1, 2],
        help="ACP protocol version to initialize with: 1 (default) or 2 (adds the foreground-state cases)",
    )
    group.addoption(
        "--agent-url",
        dest="agent_url",
        default=None,
        metavar="URL",
        help="an agent already listening: ws://… (WebSocket) or http://… (Streamable HTTP); cases that "
        "restart it are not testable",
    )
    group.addoption(
        "--cwd",
        dest="agent_cwd",
        default=None,
        help="working directory of the agent and of its sessions (default: a fresh sandbox in the report dir)",
    )
    group.addoption(
        "--env",
        dest="agent_env",
        action="append",
        default=[],
        metavar="K=V",
        help="extra environment variable for the agent (repeatable)",
    )
    group.addoption(
        "--secret-env",
        dest="agent_secret_env",
        action="append",
        default=[],
        metavar="K=V",
        help="like --env, and the value is redacted from every report (names with KEY/TOKEN/SECRET are anyway)",
    )
    group.addoption(
        "--run-budget",
        type=float,
        default=1800.0,
        help="seconds for the whole run; cases after it are reported as not run (default 1800)",
    )
    group.addoption(
        "--auth-method",
        default=None,
        metavar="ID",
        help="call authenticate with this method id after initialize",
    )
    group.addoption(
        "--timeout",
        dest="agent_timeout",
        type=float,
        default=10.0,
        help="seconds to wait for each response (default 10)",
    )
    group.addoption(
        "--settle",
        type=float,
        default=0.05,
        help="seconds to wait for stray notifications after a status call (default 0.05)",
    )
    group.addoption(
        "--strict-should",
        dest="conformance_strict",
        action="store_true",
        help="count broken SHOULDs (warn) as failures; pytest's own --strict implies it",
    )
    group.addoption(
        "--spec",
        dest="conformance_spec",
        default="auto",
        help="spec revision to check: auto (default: the revision the agent speaks), "
        + ", ".join(revisions.available()),
    )
    group.addoption(
        "--profile",
        dest="conformance_profile",
        default="ci",
        help="budget of the Hypothesis sequence and fuzz cases: ci (derandomized, bounded; default), dev, thorough",
    )
    group.addoption(
        "--seed", dest="conformance_seed", type=int, default=None, help="seed of the sequence and fuzz cases"
    )
    group.addoption(
        "--expected-failures",
        dest="expected_failures",
        default=None,
        metavar="FILE",
        help="baseline of known failures (TOML or YAML, entries by case id with a reason): only new failures "
        "and stale entries fail the run",
    )
    group.addoption(
        "--update-expected-failures",
        dest="update_expected_failures",
        action="store_true",
        help="write this run's failures to the --expected-failures file (keeping existing reasons)",
    )
    group.addoption(
        "--report-dir",
        default=None,
        help="where report.json and junit.xml go (default reports/<agent>-<timestamp>/)",
    )
    _add_target_options(parser)


def _add_target_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("session-status-targets", "other targets: MCP session_heartbeat, HTTP status")
    group.addoption(
        "--target",
        dest="conformance_target",
        default=None,
        choices=["acp", "mcp", "http"],
        help="what to certify: acp (session/status; default), mcp (the session_heartbeat tool), http "
        "(GET /sessions/{id}/status); --mcp-cmd/--mcp-url and --http-url imply it",
    )
    group.addoption(
        "--mcp-cmd",
        default=None,
        help="command that starts the MCP server (stdio; with --transport http it prints its URL)",
    )
    group.addoption(
        "--mcp-url", default=None, metavar="URL", help="an MCP server already listening (Streamable HTTP)"
    )
    group.addoption(
        "--header",
        dest="mcp_headers",
        action="append",
        default=[],
        metavar="K=V",
        help="HTTP header of caller A, e.g. 'Authorization=Bearer …' (repeatable; redacted from reports)",
    )
    group.addoption(
        "--other-header",
        dest="mcp_other_headers",
        action="append",
        default=[],
        metavar="K=V",
        help="HTTP header of caller B (another principal), for the access cases (repeatable; redacted)",
    )
    group.addoption(
        "--instruct-cmd",
        default=None,
        help="operator command that enqueues a human instruction: words with {sessionId} and {text}, e.g. "
        "'myctl instruct {sessionId} {text}' (no shell)",
    )
    group.addoption(
        "--instruct-url",
        default=None,
        metavar="URL",
        help='operator endpoint that enqueues an instruction: POSTed {"sessionId", "text"}; {sessionId} and '
        "{baseUrl} (the MCP URL's origin) are replaced",
    )
    group.addoption(
        "--http-cmd", default=None, help="command that starts an HTTP status service and prints its URL"
    )
    group.addoption(
        "--http-url", default=None, metavar="URL", help="base URL of a service with GET /sessions/{id}/status"
    )
    group.addoption(
        "--user-id", dest="http_user_id", default=None, help="x-user-id of the caller (default: a fresh id)"
    )
    group.addoption(
        "--other-user-id",
        dest="http_other_user_id",
        default=None,
        help="x-user-id of another owner, for the ownership cases (default: a fresh id)",
    )
    group.addoption(
        "--agent-id", dest="http_agent_id", default=None, help="agent of an existing session to probe"
    )
    group.addoption(
        "--session-id",
        dest="http_session_id",
        default=None,
        help="an existing session of --user-id, for services whose API the suite cannot drive",
    )
    group.addoption(
        "--instructions-path",
        default=None,
        metavar="POINTER",
        help="JSON Pointer to the instruction list in a heartbeat result (default: /instructions or "
        "/pendingInstructions)",
    )
    group.addoption(
        "--cursor-path",
        default=None,
        metavar="POINTER",
        help="JSON Pointer to the next-page cursor (default: /nextCursor, /instructionCursor or /nextInstructionCursor)",
    )

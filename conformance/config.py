"""What the user told the suite about the agent under test, parsed and checked once."""

from __future__ import annotations

import os
import re
import shlex
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "AgentConfig",
    "HttpOptions",
    "McpOptions",
    "UsageError",
    "parse_env",
    "parse_headers",
    "reference_agent_command",
    "reference_mcp_command",
]


PROFILE_NAMES = ("ci", "dev", "thorough")


class UsageError(Exception):
    """A bad option value: reported as one line, exit code 2."""


def reference_agent_command() -> list[str]:
    return [sys.executable, "-m", "conformance.reference.agent"]


def reference_mcp_command(transport: str = "stdio") -> list[str]:
    command = [sys.executable, "-m", "conformance.reference.mcp_server"]
    return command + (["--http", "127.0.0.1:0"] if transport == "http" else [])


REFERENCE_INSTRUCT_CMD = "{python} -m conformance.reference.mcp_instruct {{sessionId}} {{text}}"
REFERENCE_INSTRUCT_URL = "{baseUrl}/operator/instructions"
# The embedded reference server over HTTP names its callers by their Authorization header.
REFERENCE_CALLERS = ({"Authorization": "Bearer conformance-a"}, {"Authorization": "Bearer conformance-b"})


def parse_headers(pairs: list[str], option: str) -> dict[str, str]:
    headers: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or any(c.isspace() for c in key.strip()):
            raise UsageError(
                f"{option} {pair!r} is not NAME=VALUE: write it as {option} 'Authorization=Bearer …'"
            )
        headers[key.strip()] = value
    return headers


@dataclass
class McpOptions:
    """How to reach an MCP server's `session_heartbeat` and its operator side (--mcp-* options)."""

    headers: dict[str, str] = field(default_factory=dict)  # caller A (--header)
    other_headers: dict[str, str] | None = None  # caller B (--other-header), for the access cases
    instruct_cmd: list[str] | None = None  # words, with {sessionId} and {text} placeholders
    instruct_url: str | None = None  # with {sessionId} / {baseUrl} placeholders; POST {"sessionId", "text"}
    instructions_path: str | None = None  # JSON Pointer into the result; None: recognise common names
    cursor_path: str | None = None

    @classmethod
    def from_options(
        cls,
        *,
        headers: list[str],
        other_headers: list[str],
        instruct_cmd: str | None,
        instruct_url: str | None,
        instructions_path: str | None,
        cursor_path: str | None,
        embedded: bool,
        transport: str,
    ) -> McpOptions:
        for name, pointer in (("--instructions-path", instructions_path), ("--cursor-path", cursor_path)):
            if pointer is not None and not (pointer == "" or pointer.startswith("/")):
                raise UsageError(f"{name} {pointer!r} is not a JSON Pointer: write it like /instructions")
        words = None
        if instruct_cmd is not None:
            try:
                words = shlex.split(instruct_cmd)
            except ValueError as exc:
                raise UsageError(f"--instruct-cmd cannot be split into words: {exc}") from None
            if not words or "{text}" not in instruct_cmd:
                raise UsageError("--instruct-cmd needs a command with {text} (and usually {sessionId}) in it")
            words = absolutize_paths(words)
        if instruct_url is not None and not re.match(r"^(https?://|\{baseUrl\})\S*$", instruct_url):
            raise UsageError(f"--instruct-url {instruct_url!r} is not an http:// URL (or {{baseUrl}}/…)")
        options = cls(
            headers=parse_headers(headers, "--header"),
            other_headers=parse_headers(other_headers, "--other-header") if other_headers else None,
            instruct_cmd=words,
            instruct_url=instruct_url,
            instructions_path=instructions_path,
            cursor_path=cursor_path,
        )
        if embedded and not (instruct_cmd or instruct_url):  # the reference server's own operator side
            if transport == "http":
                options.instruct_url = REFERENCE_INSTRUCT_URL
            else:
                options.instruct_cmd = shlex.split(
                    REFERENCE_INSTRUCT_CMD.format(python=shlex.quote(sys.executable))
                )
        if embedded and transport == "http" and not headers and other_headers == []:
            options.headers, options.other_headers = dict(REFERENCE_CALLERS[0]), dict(REFERENCE_CALLERS[1])
        return options


@dataclass
class HttpOptions:
    """Who asks, and about what, for `GET /sessions/{id}/status` (--user-id and friends)."""

    user_id: str = field(default_factory=lambda: f"conformance-user-{uuid.uuid4().hex[:8]}")
    other_user_id: str = field(default_factory=lambda: f"conformance-other-{uuid.uuid4().hex[:8]}")
    agent_id: str | None = None  # an existing session to probe, for services the suite cannot drive
    session_id: str | None = None

    @classmethod
    def from_options(
        cls, *, user_id: str | None, other_user_id: str | None, agent_id: str | None, session_id: str | None
    ) -> HttpOptions:
        options = cls(agent_id=agent_id, session_id=session_id)
        for name, value in (("--user-id", user_id), ("--other-user-id", other_user_id)):
            if value is not None and (not value.strip() or any(c in value for c in "\r\n")):
                raise UsageError(f"{name} {value!r} is not a usable header value")
        options.user_id = user_id or options.user_id
        options.other_user_id = other_user_id or options.other_user_id
        if options.user_id == options.other_user_id:
            raise UsageError("--other-user-id must differ from --user-id: it plays another owner")
        if (agent_id is None) != (session_id is None):
            raise UsageError("pass --agent-id and --session-id together (an existing session of --user-id)")
        return options


def reference_http_command() -> list[str]:
    return [sys.executable, "-m", "conformance.reference.http_status", "--listen", "127.0.0.1:0"]


def parse_env(pairs: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key or any(c.isspace() for c in key):
            raise UsageError(f"--env {pair!r} is not KEY=VALUE: write it as --env NAME=value")
        env[key] = value
    return env


def absolutize_paths(command: list[str]) -> list[str]:
    """Make words that name existing relative paths absolute.

    The agent runs in its own working directory (a sandbox unless --cwd says otherwise), so
    `--agent "python my_agent.py"` must keep meaning the file next to the user, not in it.
    """
    out = []
    for word in command:
        names_a_path = word and not word.startswith("-") and not os.path.isabs(word) and os.path.exists(word)
        if names_a_path and (os.sep in word or os.path.isfile(word)):
            word = os.path.abspath(word)
        out.append(word)
    return out


TRANSPORTS = ("stdio", "websocket", "http")
TARGETS = ("acp", "mcp", "http")


@dataclass
class AgentConfig:
    command: list[str]
    cwd: str
    env: dict[str, str] = field(default_factory=dict)
    auth_method: str | None = None
    timeout: float = 10.0
    settle: float = 0.05
    embedded: bool = False
    run_budget: float = 1800.0  # seconds for the whole run; later cases are reported as not run
    secrets: list[str] = field(default_factory=list)  # values to redact from reports
    profile: str = "ci"  # Hypothesis profile for sequence and fuzz cases: ci | dev | thorough
    seed: int | None = None
    report_dir: str | None = None
    # "stdio", or "websocket" / "http" (Streamable HTTP): the command is a server that prints
    # its URL on stdout, or, with no command, an agent already listening at ``url``.
    transport: str = "stdio"
    url: str | None = None
    protocol: int = 1  # the ACP protocol version the suite initializes with
    # What is certified: "acp" (session/status), "mcp" (the session_heartbeat tool) or "http"
    # (GET /sessions/{id}/status).
    target: str = "acp"
    mcp: McpOptions = field(default_factory=McpOptions)
    http: HttpOptions = field(default_factory=HttpOptions)

    @property
    def restartable(self) -> bool:
        return bool(self.command)

    @classmethod
    def from_options(
        cls,
        agent: str | None,
        *,
        cwd: str | None,
        env: list[str],
        auth_method: str | None,
        timeout: float,
        settle: float,
        sandbox: Path,
        profile: str = "ci",
        seed: int | None = None,
        report_dir: Path | None = None,
        transport: str = "stdio",
        url: str | None = None,
        protocol: int = 1,
        target: str = "acp",
    ) -> AgentConfig:
        if protocol not in (1, 2):
            raise UsageError(f"--protocol {protocol} is not 1 or 2")
        if transport not in TRANSPORTS:
            raise UsageError(f"--transport {transport!r} is not one of {', '.join(TRANSPORTS)}")
        if url is not None:
            if agent is not None:
                raise UsageError("pass --agent CMD or --agent-url URL, not both")
            if re.match(r"^wss?://[^\s]+$", url):
                transport = "websocket"
            elif re.match(r"^https?://[^\s]+$", url):
                transport = "http"
            else:
                raise UsageError(f"--agent-url {url!r} is not a ws://, wss://, http:// or https:// URL")
        if target == "http":
            transport = "http"  # plain HTTP requests; a command is a server that prints its URL
        if url is not None:
            command, embedded = [], False
        elif agent is None and target == "http":
            command, embedded = reference_http_command(), True
        elif agent is None and target == "mcp":
            if transport == "websocket":
                raise UsageError(
                    "MCP servers are reached over stdio or Streamable HTTP: --transport stdio or http"
                )
            command, embedded = reference_mcp_command(transport), True
        elif agent is None:
            command, embedded = reference_agent_command(), True
            if protocol == 2:
                if transport != "stdio":
                    raise UsageError(
                        "the embedded reference agent serves ACP v2 over stdio only: drop --transport, or pass --agent"
                    )
                command += ["--protocol", "2"]
            if transport == "websocket":
                command += ["--listen", "127.0.0.1:0"]
            elif transport == "http":
                command += ["--listen-http", "127.0.0.1:0"]
        else:
            try:
                command = shlex.split(agent)
            except ValueError as exc:
                raise UsageError(f"--agent {agent!r} cannot be split into words: {exc}") from None
            if not command or not command[0].strip():
                raise UsageError(
                    "--agent is empty: pass the command that starts your agent, e.g. --agent 'node agent.js'"
                )
            embedded = False
            command = absolutize_paths(command)
        if cwd is None:
            sandbox.mkdir(parents=True, exist_ok=True)
            workdir = sandbox
        else:
            workdir = Path(cwd)
            if not workdir.is_dir():
                raise UsageError(f"--cwd {cwd!r} is not a directory: create it or pass an existing one")
        if profile not in PROFILE_NAMES:
            raise UsageError(f"--profile {profile!r} is not one of {', '.join(PROFILE_NAMES)}")
        if timeout <= 0:
            raise UsageError(f"--timeout {timeout} must be a positive number of seconds")
        return cls(
            command=command,
            cwd=str(workdir.resolve()),
            env=parse_env(env),
            auth_method=auth_method,
            timeout=timeout,
            settle=settle,
            embedded=embedded,
            profile=profile,
            seed=seed,
            report_dir=str(report_dir) if report_dir is not None else None,
            transport=transport,
            url=url,
            protocol=protocol,
            target=target,
        )

    def process_env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.env)
        return env

    def display_command(self) -> str:
        return shlex.join(self.command) if self.command else str(self.url)

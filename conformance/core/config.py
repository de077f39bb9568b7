"""What the user told the suite about the agent under test, parsed and checked once."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.core.errors import UsageError
from conformance.core.profiles import PROFILES

__all__ = [
    "AgentConfig",
    "UsageError",
    "absolutize_paths",
    "agent_command_problem",
    "parse_env",
    "parse_headers",
    "url_transport",
]


def url_transport(url: str, option: str = "--agent-url") -> str:
    """The transport a URL names (ws:// or wss://: "websocket"; http:// or https://: "http")."""
    if re.match(r"^wss?://[^\s]+$", url):
        return "websocket"
    if re.match(r"^https?://[^\s]+$", url):
        return "http"
    raise UsageError(f"{option} {url!r} is not a ws://, wss://, http:// or https:// URL")


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


# Programs whose first word that is not an option is a file they run (a script): a missing one is
# named before the agent starts, relative to where the user typed it, not as the interpreter says
# it from the agent's own working directory (a sandbox in the report folder).
_INTERPRETERS = re.compile(r"(python|pypy|node|nodejs|bun|ruby|perl|php|bash|sh|zsh)[0-9.]*")
# Options after which an interpreter runs no script file (a module, inline code).
_NO_SCRIPT = {"-m", "-c", "-e", "--eval", "-p", "--print", "-"}
# Options of those interpreters that take a value as their next word.
_TAKES_VALUE = {"-W", "-X", "-r", "--require", "--import", "--loader"}


def agent_command_problem(agent: str | None, option: str = "--agent", cwd: str | None = None) -> str | None:
    """A one-line problem with a command the suite is to start, or None: checked before anything
    starts (no report folder, no sandbox). Paths are the user's: relative to where the command was
    typed, or (a script) to ``cwd``, the agent's --cwd, where it runs."""
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
            return f"agent command not found: {exe!r} does not exist{_near(path)}{_elsewhere(path, option)}"
        if path.is_dir() or not os.access(path, os.X_OK):
            return (
                f"agent command is not executable: {exe!r} (chmod +x it, or prefix the interpreter, e.g. "
                f"'python {exe}')"
            )
    elif shutil.which(exe) is None:
        if Path(exe).is_file():
            return f"agent command not found: {exe!r} is not on PATH, but it is a file here: {_run_file(exe, words)}"
        return f"agent command not found: {exe!r} is not on PATH (install it, or pass its full path)"
    script = _script(words)
    if script is not None:
        path = Path(script).expanduser()
        places = [Path.cwd()] + ([Path(cwd)] if cwd else [])
        if not any((place / path).exists() for place in places):
            where = f"in {Path.cwd()}" + (f" nor in --cwd {cwd}" if cwd else "")
            return (
                f"agent command names a file that does not exist: {script!r} ({where})"
                f"{_near(Path.cwd() / path)}{_elsewhere(path, option)}"
            )
    return None


# How a file is run by its suffix, for a command that names the file alone.
_RUNS_WITH = {".py": "python", ".js": "node", ".mjs": "node", ".cjs": "node", ".ts": "npx tsx", ".sh": "sh"}


def _run_file(exe: str, words: list[str]) -> str:
    """What to type instead of a bare file name (`agent.py`): the shell looks only on PATH for it."""
    rest = shlex.join(words[1:])
    tail = f" {rest}" if rest else ""
    local = shlex.quote(f".{os.sep}{exe}") + tail
    interpreter = _RUNS_WITH.get(Path(exe).suffix)
    if interpreter is None:
        return f"pass '{local}' (it must be executable)"
    return f"pass '{interpreter} {shlex.quote(exe)}{tail}' (or '{local}' if it is executable, with a #! line)"


def _elsewhere(path: Path, option: str) -> str:
    """For an absolute path that is not here: the command may have been recorded on another
    machine (a report's reproduce: line, a replay file made on a CI runner)."""
    if not path.is_absolute():
        return ""
    return (
        f"; a command recorded on another machine (a report or replay file from CI) names its paths there: "
        f"pass {option} CMD to start the agent as it runs here"
    )


def _script(words: list[str]) -> str | None:
    """The script file an interpreter command runs (`python my_agent.py`), if it names one."""
    if not _INTERPRETERS.fullmatch(Path(words[0]).name):
        return None
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
            continue
        if word in _NO_SCRIPT:
            return None
        if word in _TAKES_VALUE:
            skip = True
            continue
        if word.startswith("-"):
            continue
        looks_like_a_file = os.sep in word or Path(word).suffix in (
            ".py",
            ".js",
            ".mjs",
            ".cjs",
            ".ts",
            ".rb",
            ".sh",
            ".pl",
            ".php",
        )
        return word if looks_like_a_file else None
    return None


def _near(path: Path) -> str:
    """ "; did you mean …?" for a file of the same folder whose name is close to the one given."""
    import difflib

    folder = path.parent
    try:
        names = [p.name for p in folder.iterdir()]
    except OSError:
        return ""
    close = difflib.get_close_matches(path.name, names, n=1, cutoff=0.6)
    if not close:
        return ""
    found = os.path.normpath(folder / close[0])
    shown = os.path.relpath(found) if Path(found).is_relative_to(Path.cwd()) else found
    return f"; did you mean {shown!r}?"


TRANSPORTS = ("stdio", "websocket", "http")


def _chosen_transport(
    agent: str | None,
    url: str | None,
    transport: str,
    fixed_transport: str | None,
    agent_option: str,
    url_option: str,
) -> str:
    """The transport the run speaks: a URL's scheme decides, and a target that has one transport
    only (``fixed_transport``) decides above all."""
    if transport not in TRANSPORTS:
        raise UsageError(f"--transport {transport!r} is not one of {', '.join(TRANSPORTS)}")
    if url is not None:
        if agent is not None:
            raise UsageError(f"pass {agent_option} CMD or {url_option} URL, not both")
        transport = url_transport(url, url_option)
    if fixed_transport is not None:
        transport = fixed_transport  # e.g. plain HTTP requests; a command is a server that prints its URL
    return transport


def _agent_words(agent: str, agent_option: str, cwd: str | None) -> list[str]:
    """The agent's command split into words, its relative paths made absolute."""
    try:
        command = shlex.split(agent)
    except ValueError as exc:
        raise UsageError(f"{agent_option} {agent!r} cannot be split into words: {exc}") from None
    if not command or not command[0].strip():
        raise UsageError(
            f"{agent_option} is empty: pass the command that starts it, e.g. {agent_option} 'node agent.js'"
        )
    problem = agent_command_problem(agent, agent_option, cwd)
    if problem:
        raise UsageError(problem)
    return absolutize_paths(command)


def _workdir(cwd: str | None, sandbox: Path) -> Path:
    """--cwd, which must exist, else the sandbox, made."""
    if cwd is None:
        sandbox.mkdir(parents=True, exist_ok=True)
        return sandbox
    workdir = Path(cwd)
    if not workdir.is_dir():
        raise UsageError(f"--cwd {cwd!r} is not a directory: create it or pass an existing one")
    return workdir


@dataclass
class AgentConfig:
    command: list[str]
    cwd: str
    env: dict[str, str] = field(default_factory=dict)
    timeout: float = 10.0  # the request clock: how long a request other than a prompt may take
    # The turn clock: how long a turn (a prompt and the model's work it sets off) may take. Real
    # agents answer a request in milliseconds and a turn in seconds to minutes.
    turn_timeout: float = 300.0
    # --max-prompts: how many prompts (each a model call for a real agent) the run may send in
    # all; None: no cap. ``prompt_ledger``: a file the run's workers (pytest-xdist) count them in
    # together; None: this process counts alone.
    max_prompts: int | None = None
    prompt_ledger: str | None = None
    settle: float = 0.05
    embedded: bool = False
    run_budget: float = 1800.0  # seconds for the whole run; later cases are reported as not run
    secrets: list[str] = field(default_factory=list)  # values to redact from reports
    profile: str = "ci"  # Hypothesis profile for sequence and fuzz cases: ci | dev | thorough
    seed: int | None = None
    report_dir: str | None = None
    example_db: str | None = None  # --db: a folder or redis:// URL the Hypothesis runs share
    example_database: Any = None  # the database --db opened (an ExampleDatabase), for this run's cases
    # `replay FILE` of a fuzz finding: the recorded input, which the fuzz case checks alone
    # instead of drawing inputs.
    replay_input: dict[str, Any] | None = None
    # "stdio", or "websocket" / "http" (Streamable HTTP): the command is a server that prints
    # its URL on stdout, or, with no command, an agent already listening at ``url``.
    transport: str = "stdio"
    url: str | None = None
    # What is certified: a name in conformance.targets.TARGETS (given by whoever configures a run).
    target: str = field(kw_only=True)
    # The target's own options, parsed by the target (its configure()): McpOptions, HttpOptions…
    target_options: Any = None
    hold: float | None = None  # --hold; None: the profile's
    # The option values the run was given (dest -> value, its target's command made absolute), as
    # replay files and report.json record them (secrets redacted), so that `replay` and
    # `reproduce` start the agent as the run did.
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def hold_seconds(self) -> float:
        """How long a state a case relies on is watched before it is believed to stay (--hold, else
        the profile's)."""
        return self.hold if self.hold is not None else PROFILES[self.profile].hold

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
        timeout: float,
        settle: float,
        sandbox: Path,
        profile: str = "ci",
        seed: int | None = None,
        report_dir: Path | None = None,
        transport: str = "stdio",
        url: str | None = None,
        target: str,
        reference: Callable[[str], list[str]] | None = None,
        fixed_transport: str | None = None,
        agent_option: str = "--agent",
        url_option: str = "--agent-url",
    ) -> AgentConfig:
        """``reference(transport)``: the target's embedded reference command, used when neither a
        command nor a URL is given (it raises UsageError for what it cannot serve)."""
        transport = _chosen_transport(agent, url, transport, fixed_transport, agent_option, url_option)
        if url is not None:
            command, embedded = [], False
        elif agent is None:
            if reference is None:
                raise UsageError(f"pass {agent_option} CMD: this target has no embedded reference")
            command, embedded = reference(transport), True
        else:
            command, embedded = _agent_words(agent, agent_option, cwd), False
        workdir = _workdir(cwd, sandbox)
        if profile not in PROFILES:
            raise UsageError(f"--profile {profile!r} is not one of {', '.join(PROFILES)}")
        if timeout <= 0:
            raise UsageError(f"--timeout {timeout} must be a positive number of seconds")
        return cls(
            command=command,
            cwd=str(workdir.resolve()),
            env=parse_env(env),
            timeout=timeout,
            settle=settle,
            embedded=embedded,
            profile=profile,
            seed=seed,
            report_dir=str(report_dir) if report_dir is not None else None,
            transport=transport,
            url=url,
            target=target,
        )

    def process_env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.env)
        return env

"""A fleet list, read into entries: the ACP registry's format (`{"version": "1.0.0", "agents": [...]}`,
or one `agent.json`) or the suite's own TOML (`[[agent]]` tables).

A list is data from elsewhere (a registry, a URL): every entry is checked here, and one that cannot
be used becomes an entry with a ``problem``, reported as a row with its reason; the others still run.
"""

from __future__ import annotations

import json
import platform
import re
import sys
import tomllib
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["KINDS", "Entry", "ListError", "load_list", "platform_key", "slug"]

# The order the registry's own matrix prefers when an agent has several distributions.
KINDS = ("npx", "uvx", "binary")
TRANSPORTS = ("stdio", "websocket", "http")
LIST_LIMIT = 16 * 1024 * 1024  # a registry is a few hundred kB
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class ListError(Exception):
    """The list as a whole cannot be read (a usage error): no entry can be told apart."""


@dataclass(frozen=True)
class Entry:
    """One agent of the list, as the fleet installs and certifies it."""

    id: str
    name: str
    version: str
    kind: str  # npx, uvx, binary, command (a command that needs no install), or "" (problem)
    package: str = ""  # npx / uvx: the package spec as written (name@version, name==version)
    cmd: str = ""  # npx / uvx: the executable the package installs; binary: the file in the archive
    args: tuple[str, ...] = ()
    archive: str = ""  # binary: the archive's URL (or a local path)
    command: str = ""  # kind "command": the command line, {python} standing for this Python
    env: tuple[tuple[str, str], ...] = ()  # the agent's environment (dummy keys)
    auth_method: str = ""
    protocol: int = 1
    transport: str = "stdio"
    suite_args: tuple[str, ...] = ()  # more options for the suite, as-is
    python: str = ""  # uvx: the interpreter the venv is made with (a program name or path)
    node: str = ""  # npx: the Node major (or exact version) to run it with, installed into the cache
    max_prompts: int | None = None
    time_limit: float | None = None
    problem: str = ""  # why the entry cannot be used; kind is then ""
    unsupported: str = ""  # why it cannot run on this platform (a valid entry)
    source: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def slug(self) -> str:
        return slug(self.id, self.version)


def slug(agent_id: str, version: str) -> str:
    """A file name for one agent and version: what a folder, a badge and a job are named after."""
    text = f"{agent_id}@{version}" if version else agent_id
    return re.sub(r"[^A-Za-z0-9._@+-]", "_", text)[:120] or "agent"


def platform_key() -> str:
    """The registry's name of this platform: linux-x86_64, darwin-aarch64, windows-x86_64 …"""
    system = {"linux": "linux", "darwin": "darwin", "win32": "windows"}.get(sys.platform, sys.platform)
    machine = platform.machine().lower()
    machine = {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    return f"{system}-{machine}"


def read_source(source: str, timeout: float = 60.0) -> tuple[str, str]:
    """The list's text, and its name (a path or the URL); a URL is read once, bounded."""
    if re.match(r"^https?://", source):
        try:
            with urllib.request.urlopen(source, timeout=timeout) as response:
                data = response.read(LIST_LIMIT + 1)
        except OSError as exc:
            raise ListError(f"cannot read the fleet list {source}: {exc}") from exc
        if len(data) > LIST_LIMIT:
            raise ListError(f"the fleet list {source} is over {LIST_LIMIT} bytes")
        return data.decode("utf-8", "replace"), source
    path = Path(source)
    if not path.is_file():
        raise ListError(f"the fleet list {source!r} is not a file (a registry JSON, a TOML list or a URL)")
    if path.stat().st_size > LIST_LIMIT:
        raise ListError(f"the fleet list {source!r} is over {LIST_LIMIT} bytes")
    return path.read_text(encoding="utf-8", errors="replace"), str(path)


def load_list(source: str) -> list[Entry]:
    """The entries of a registry JSON, an agent.json or a TOML list (by content, not by name)."""
    text, name = read_source(source)
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ListError(f"the fleet list {name} is not valid JSON: {exc}") from exc
        return registry_entries(data, name)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ListError(f"the fleet list {name} is neither JSON nor valid TOML: {exc}") from exc
    return toml_entries(data, name)


def registry_entries(data: Any, name: str) -> list[Entry]:
    if isinstance(data, dict) and "distribution" in data and "agents" not in data:
        agents: Any = [data]  # one agent.json
    elif isinstance(data, dict) and isinstance(data.get("agents"), list):
        agents = data["agents"]
    else:
        raise ListError(f'the fleet list {name} has no "agents" list (the ACP registry\'s format)')
    return _unique([registry_entry(agent, index) for index, agent in enumerate(agents)])


def toml_entries(data: dict[str, Any], name: str) -> list[Entry]:
    agents = data.get("agent")
    if not isinstance(agents, list):
        raise ListError(f"the fleet list {name} has no [[agent]] tables")
    defaults = data.get("defaults") if isinstance(data.get("defaults"), dict) else {}
    return _unique([toml_entry(agent, index, defaults or {}) for index, agent in enumerate(agents)])


def _unique(entries: list[Entry]) -> list[Entry]:
    """Two entries of one id and version would write one folder: the second is a problem row."""
    seen: set[str] = set()
    out = []
    for entry in entries:
        if entry.slug in seen and not entry.problem:
            entry = _problem(
                entry.id, entry.version, f"a second entry for {entry.id} {entry.version}", entry.source
            )
        seen.add(entry.slug)
        out.append(entry)
    return out


def _problem(agent_id: str, version: str, why: str, source: Any) -> Entry:
    return Entry(
        id=agent_id,
        name=agent_id,
        version=version,
        kind="",
        problem=why,
        source=source if isinstance(source, dict) else {},
    )


def _text(value: Any, limit: int = 200) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what} is not a list of strings")
    return tuple(value)


def _env(value: Any, what: str) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not a table of strings")
    pairs = []
    for key, item in value.items():
        if (
            not isinstance(key, str)
            or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key)
            or not isinstance(item, str)
        ):
            raise ValueError(f'{what} has an entry that is not NAME = "value": {str(key)[:60]!r}')
        pairs.append((key, item))
    return tuple(pairs)


def _identity(agent: Any, index: int) -> tuple[str, str, str]:
    """The entry's id, version and name, or a ValueError saying which is missing."""
    if not isinstance(agent, dict):
        raise ValueError(f"entry {index + 1} is not an object")
    agent_id = agent.get("id")
    if not isinstance(agent_id, str) or not _ID.match(agent_id):
        raise ValueError(f'entry {index + 1} has no usable "id" (letters, digits, ".", "_", "-")')
    version = agent.get("version", "")
    if not isinstance(version, str) or len(version) > 100:
        raise ValueError(f'{agent_id}: "version" is not a string')
    return agent_id, version, _text(agent.get("name")) or agent_id


def registry_entry(agent: Any, index: int) -> Entry:
    """One registry agent: the distribution the registry's matrix would pick (npx, uvx, binary)."""
    try:
        agent_id, version, name = _identity(agent, index)
    except ValueError as exc:
        raw = agent.get("id") if isinstance(agent, dict) else None
        return _problem(
            _text(raw, 100) or f"entry-{index + 1}", "", f"malformed registry entry: {exc}", agent
        )
    try:
        distribution = agent.get("distribution")
        if not isinstance(distribution, dict) or not distribution:
            raise ValueError('no "distribution" object')
        extra = agent.get("conformance") if isinstance(agent.get("conformance"), dict) else {}
        flags = _flags(extra or {}, agent_id)
        kind = next((k for k in KINDS if k in distribution), None)
        if kind is None:
            kinds = ", ".join(sorted(str(k)[:40] for k in distribution))
            return Entry(
                id=agent_id,
                name=name,
                version=version,
                kind="",
                unsupported=f"unknown distribution kind ({kinds}): the fleet installs npx, uvx and binary",
                source=agent,
            )
        return _distribution(agent_id, name, version, kind, distribution[kind], flags, agent)
    except ValueError as exc:
        return _problem(agent_id, version, f"malformed registry entry: {exc}", agent)


def _distribution(
    agent_id: str,
    name: str,
    version: str,
    kind: str,
    spec: Any,
    flags: dict[str, Any],
    source: dict[str, Any],
) -> Entry:
    if not isinstance(spec, dict):
        raise ValueError(f"distribution.{kind} is not an object")
    if kind == "binary":
        key = platform_key()
        target = spec.get(key)
        if target is None:
            have = ", ".join(sorted(str(k)[:40] for k in spec)) or "none"
            return Entry(
                id=agent_id,
                name=name,
                version=version,
                kind=kind,
                unsupported=f"no binary for this platform ({key}); the entry has: {have}",
                source=source,
            )
        if (
            not isinstance(target, dict)
            or not isinstance(target.get("archive"), str)
            or not isinstance(target.get("cmd"), str)
        ):
            raise ValueError(f'distribution.binary.{key} needs "archive" and "cmd" strings')
        return Entry(
            id=agent_id,
            name=name,
            version=version,
            kind=kind,
            archive=target["archive"],
            cmd=target["cmd"],
            args=_strings(target.get("args"), f"distribution.binary.{key}.args"),
            env=_env(target.get("env"), f"distribution.binary.{key}.env") + flags.pop("env", ()),
            source=source,
            **flags,
        )
    package = spec.get("package")
    if not isinstance(package, str) or not package.strip() or package.startswith("-") or len(package) > 300:
        raise ValueError(f'distribution.{kind} has no "package" string')
    cmd = spec.get("cmd", "")
    if not isinstance(cmd, str) or "/" in cmd:
        raise ValueError(f"distribution.{kind}.cmd is not a command name")
    return Entry(
        id=agent_id,
        name=name,
        version=version,
        kind=kind,
        package=package.strip(),
        cmd=cmd,
        args=_strings(spec.get("args"), f"distribution.{kind}.args"),
        env=_env(spec.get("env"), f"distribution.{kind}.env") + flags.pop("env", ()),
        source=source,
        **flags,
    )


def _flags(table: dict[str, Any], agent_id: str) -> dict[str, Any]:
    """The suite's options an entry may carry: auth-method, env, protocol, transport, args, python,
    max-prompts, time-limit (TOML keys; in a registry entry, under "conformance")."""
    flags: dict[str, Any] = {}
    if "auth-method" in table:
        if not isinstance(table["auth-method"], str):
            raise ValueError("auth-method is not a string")
        flags["auth_method"] = table["auth-method"]
    if "env" in table:
        flags["env"] = _env(table["env"], "env")
    if "protocol" in table:
        if table["protocol"] not in (1, 2):
            raise ValueError("protocol is not 1 or 2")
        flags["protocol"] = table["protocol"]
    if "transport" in table:
        if table["transport"] not in TRANSPORTS:
            raise ValueError(f"transport is not one of {', '.join(TRANSPORTS)}")
        flags["transport"] = table["transport"]
    if "args" in table:
        flags["suite_args"] = _strings(table["args"], "args")
    if "python" in table:
        if not isinstance(table["python"], str):
            raise ValueError("python is not a string")
        flags["python"] = table["python"]
    if "node" in table:
        if not isinstance(table["node"], str | int) or not re.fullmatch(
            r"\d+(\.\d+){0,2}", str(table["node"])
        ):
            raise ValueError('node is not a version such as "24" or "22.12.0"')
        flags["node"] = str(table["node"])
    for key, dest in (("max-prompts", "max_prompts"), ("time-limit", "time_limit")):
        if key in table:
            value = table[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValueError(f"{key} is not a number of at least 0")
            flags[dest] = int(value) if dest == "max_prompts" else float(value)
    return flags


def toml_entry(agent: Any, index: int, defaults: dict[str, Any]) -> Entry:
    """One [[agent]] table: id, name, version, then one of command / npx / uvx / binary, and the
    suite's options (auth-method, env, protocol, transport, args, python, max-prompts, time-limit)."""
    try:
        agent_id, version, name = _identity(agent, index)
    except ValueError as exc:
        raw = agent.get("id") if isinstance(agent, dict) else None
        return _problem(_text(raw, 100) or f"entry-{index + 1}", "", f"malformed fleet entry: {exc}", agent)
    try:
        flags = _flags({**defaults, **agent}, agent_id)
        given = [k for k in ("command", *KINDS) if k in agent]
        if len(given) != 1:
            raise ValueError("give exactly one of command, npx, uvx, binary")
        kind = given[0]
        if kind == "command":
            command = agent["command"]
            if not isinstance(command, str) or not command.strip():
                raise ValueError("command is not a command line")
            return Entry(
                id=agent_id, name=name, version=version, kind=kind, command=command, source=agent, **flags
            )
        # npx / uvx / binary as the registry writes them (binary: one table per platform).
        return _distribution(agent_id, name, version, kind, agent[kind], flags, agent)
    except ValueError as exc:
        return _problem(agent_id, version, f"malformed fleet entry: {exc}", agent)

"""The systems the suite certifies, found through the entry-point group
``session_status_conformance.targets`` (name = "package.module:Declaration"). The three built-in
targets register there as a third party's would; adding a target is a distribution of its own:
its declaration and driver (see base.py), its cases (conformance.cases.<name>, or its own
package), revision files and reference implementation (docs/how-to/add-target.md)."""

from __future__ import annotations

import functools
import os
import shlex
import sys
from importlib.metadata import EntryPoint, distributions
from pathlib import Path
from typing import Any

from conformance.core.config import AgentConfig, UsageError
from conformance.core.redact import secret_env_values
from conformance.targets.base import Target

__all__ = [
    "BROKEN",
    "GROUP",
    "TARGETS",
    "Target",
    "chosen",
    "configure",
    "default",
    "discover",
    "named",
    "registered",
]

GROUP = "session_status_conformance.targets"


def registered() -> list[EntryPoint]:
    """The group's entry points in every installed distribution. importlib.metadata.entry_points()
    keeps one distribution per name, the first on sys.path: from a checkout's root that can be a
    build's leftover *.egg-info older than the installed metadata."""
    found: dict[tuple[str, str], EntryPoint] = {}
    for dist in distributions():
        try:
            points = list(dist.entry_points)
        except Exception:  # another distribution's broken metadata is not this run's
            continue
        for ep in points:
            if ep.group == GROUP:
                found.setdefault((ep.name, ep.value), ep)
    return list(found.values())


def _one_line(text: str, limit: int = 300) -> str:
    """A third party's text on one bounded line, its control characters escaped."""
    line = "".join(c if c.isprintable() else repr(c)[1:-1] for c in " ".join(text.split()))
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _source(ep: EntryPoint) -> str:
    dist = ep.dist
    where = f" from {dist.name} {dist.version}" if dist is not None else ""
    return f"{ep.name} = {ep.value}{where}"


def discover() -> tuple[type[Target], ...]:
    """Every target that loads: the default one (TargetHooks.default) first, then the others by
    name. A target that does not load
    (its distribution broken or half uninstalled, a registered name that differs from its
    declaration's, a name two distributions register) is left out and named in :data:`BROKEN`,
    so that one bad distribution stops only the runs that ask for it."""
    loaded: dict[str, list[tuple[EntryPoint, type[Target]]]] = {}
    BROKEN.clear()
    for ep in sorted(registered(), key=lambda ep: (ep.name, ep.value)):
        try:
            declared = ep.load()
            name = declared.name
        except Exception as exc:  # any failure of a third party's import is its own
            BROKEN.setdefault(ep.name, f"{_source(ep)}: {type(exc).__name__}: {_one_line(str(exc))}")
            continue
        if name != ep.name:
            BROKEN.setdefault(ep.name, f"{_source(ep)}: declares the target {_one_line(repr(name), 80)}")
        else:
            loaded.setdefault(name, []).append((ep, declared))
    targets: list[type[Target]] = []
    for name, found in loaded.items():
        if len(found) > 1:  # which one a run would certify is not the suite's to guess
            BROKEN[name] = (
                f"two targets of that name, {' and '.join(_source(ep) for ep, _ in found)}: uninstall one"
            )
        elif name not in BROKEN:
            targets.append(found[0][1])
    for name, why in BROKEN.items():
        print(_one_line(f"warning: the target {name!r} is left out ({GROUP}: {why})", 600), file=sys.stderr)
    return tuple(sorted(targets, key=lambda t: not t.default))


# Targets that did not load, by their registered name: why, on one line.
BROKEN: dict[str, str] = {}

# Discovered on first use, not at import (the pytest plugin imports this module in every pytest
# session of an environment where the suite is installed).
TARGETS: tuple[type[Target], ...]


@functools.cache
def _discovered() -> tuple[type[Target], ...]:
    return discover()


def __getattr__(name: str) -> Any:
    if name == "TARGETS":
        return _discovered()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def named(name: str) -> type[Target]:
    for target in _discovered():
        if target.name == name:
            return target
    if name in BROKEN:
        raise UsageError(f"the target {name!r} is not available: {BROKEN[name]}")
    if not _discovered():
        raise UsageError(
            f"no target in the {GROUP} entry points: install the suite (pip install -e .) so its "
            "metadata registers its targets"
        )
    raise UsageError(f"no target named {name!r}: one of {', '.join(t.name for t in _discovered())}")


def default() -> type[Target]:
    """The target a run certifies when no option names one: the one that declares itself the
    default (``TargetHooks.default``), else the only one installed."""
    targets = _discovered()
    if not targets:
        return named("")  # says why there is none
    found = [t for t in targets if t.default]
    if len(found) == 1:
        return found[0]
    if len(targets) == 1:
        return targets[0]
    raise UsageError(f"pass --target: one of {', '.join(t.name for t in targets)}")


def chosen(values: dict[str, Any]) -> type[Target]:
    """The target these option values (dest -> value) pick: --target, else a target whose own
    command or URL option is given (one that is not the default first), else the default one."""
    if values.get("conformance_target"):
        return named(values["conformance_target"])
    for target in sorted(_discovered(), key=lambda t: t.default):
        if values.get(target.command_option) or values.get(target.url_option):
            return target
    return default()


def configure(values: dict[str, Any], sandbox: Path, report_dir: Path | None = None) -> AgentConfig:
    """The run's configuration from option values (dest -> value, as the command line and the
    plugin parse them): the chosen target, its command or URL (or its embedded reference), and
    its own options. Raises UsageError with a one-line message."""
    target = chosen(values)
    config = AgentConfig.from_options(
        values[target.command_option],
        cwd=values["agent_cwd"],
        env=values["agent_env"] + values["agent_secret_env"],
        timeout=values["agent_timeout"],
        settle=values["settle"],
        sandbox=sandbox,
        profile=values["conformance_profile"],
        seed=values["conformance_seed"],
        report_dir=report_dir,
        transport=values["agent_transport"],
        url=values[target.url_option],
        target=target.name,
        reference=lambda transport: target.reference_command(transport, values),
        fixed_transport=target.fixed_transport,
        agent_option="--" + target.command_option.replace("_", "-"),
        url_option="--" + target.url_option.replace("_", "-"),
    )
    config.target_options = target.configure(values, config)
    config.run_budget = values["run_budget"]
    if values.get("turn_timeout") is not None:
        if values["turn_timeout"] <= 0:
            raise UsageError(
                f"--turn-timeout {values['turn_timeout']:g} must be a positive number of seconds"
            )
        config.turn_timeout = values["turn_timeout"]
    if values.get("max_prompts") is not None:
        if values["max_prompts"] < 0:
            raise UsageError(f"--max-prompts {values['max_prompts']} must be zero or more")
        config.max_prompts = values["max_prompts"]
    if values.get("hold") is not None:
        if values["hold"] < 0:
            raise UsageError(f"--hold {values['hold']:g} must be zero or more seconds")
        config.hold = values["hold"]
    config.example_db = values.get("example_db")
    if config.example_db:
        from conformance.core import examples_db

        # A campaign keeps one local copy for all its rounds (CONFORMANCE_DB_LOCAL).
        local = Path(
            os.environ.get("CONFORMANCE_DB_LOCAL") or (report_dir or sandbox.parent) / "examples-local"
        )
        config.example_database = examples_db.open_database(config.example_db, local=local)
    marked = [pair.partition("=")[2] for pair in values["agent_secret_env"]]
    config.secrets = secret_env_values(config.env, marked + target.secrets(config))
    given = values[target.command_option]
    # The command as it ran (its paths made absolute), so a replay started elsewhere finds them.
    config.options = {**values, target.command_option: shlex.join(config.command) if given else given}
    return config

"""The systems the suite certifies, found through the entry-point group
``session_status_conformance.targets`` (name = "package.module:Declaration"). The three built-in
targets register there as a third party's would; adding a target is a distribution of its own:
its declaration and driver (see base.py), its cases (conformance.cases.<name>, or its own
package), revision files and reference implementation (docs/how-to/add-target.md)."""

from __future__ import annotations

import os
import shlex
from importlib.metadata import EntryPoint, distributions
from pathlib import Path
from typing import Any

from conformance.core.config import AgentConfig, UsageError
from conformance.core.redact import secret_env_values
from conformance.targets.base import Target

__all__ = ["DEFAULT", "GROUP", "TARGETS", "Target", "chosen", "configure", "discover", "named", "registered"]

GROUP = "session_status_conformance.targets"
DEFAULT = "acp"


def registered() -> list[EntryPoint]:
    """The group's entry points in every installed distribution. importlib.metadata.entry_points()
    keeps one distribution per name, the first on sys.path: from a checkout's root that can be a
    build's leftover *.egg-info older than the installed metadata."""
    found: dict[tuple[str, str], EntryPoint] = {}
    for dist in distributions():
        for ep in dist.entry_points:
            if ep.group == GROUP:
                found.setdefault((ep.name, ep.value), ep)
    return list(found.values())


def discover() -> tuple[type[Target], ...]:
    """Every registered target: ACP (the default) first, then the others by name. A registered
    name that differs from its declaration's, or two targets of one name, is a packaging error."""
    targets: list[type[Target]] = []
    for ep in sorted(registered(), key=lambda ep: (ep.name != DEFAULT, ep.name)):
        declared = ep.load()
        if declared.name != ep.name:
            raise RuntimeError(
                f"entry point {ep.name} = {ep.value} ({GROUP}) declares the target {declared.name!r}"
            )
        if any(t.name == declared.name for t in targets):
            raise RuntimeError(f"two targets named {ep.name!r} in {GROUP}: uninstall one")
        targets.append(declared)
    if not any(t.name == DEFAULT for t in targets):
        raise RuntimeError(
            f"no {DEFAULT} target in the {GROUP} entry points: install the suite (pip install -e .) so its "
            "metadata registers its targets"
        )
    return tuple(targets)


TARGETS: tuple[type[Target], ...] = discover()


def named(name: str) -> type[Target]:
    for target in TARGETS:
        if target.name == name:
            return target
    raise KeyError(f"no target named {name!r}: one of {', '.join(t.name for t in TARGETS)}")


def chosen(values: dict[str, Any]) -> type[Target]:
    """The target these option values (dest -> value) pick: --target, else the target whose own
    command or URL option is given, else ACP."""
    if values.get("conformance_target"):
        return named(values["conformance_target"])
    for target in TARGETS:
        if target.name != DEFAULT and (values.get(target.command_option) or values.get(target.url_option)):
            return target
    return named(DEFAULT)


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

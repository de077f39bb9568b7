"""The systems the suite certifies. This list is the only place that names them all: adding a
target is a package here (its Target class, see base.py), one line below, and its cases
(cases/<name>/), revision files, schemas, reference implementation and tests."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

from conformance.core.config import AgentConfig, UsageError
from conformance.core.redact import secret_env_values
from conformance.targets.acp.declaration import Acp
from conformance.targets.base import Target
from conformance.targets.http.declaration import Http
from conformance.targets.mcp.declaration import Mcp

__all__ = ["DEFAULT", "TARGETS", "Target", "chosen", "configure", "named"]

TARGETS: tuple[type[Target], ...] = (Acp, Mcp, Http)
DEFAULT = "acp"


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
        auth_method=values["auth_method"],
        timeout=values["agent_timeout"],
        settle=values["settle"],
        sandbox=sandbox,
        profile=values["conformance_profile"],
        seed=values["conformance_seed"],
        report_dir=report_dir,
        transport=values["agent_transport"],
        url=values[target.url_option],
        protocol=values["agent_protocol"],
        target=target.name,
        reference=target.reference_command,
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
        examples_db.configure(examples_db.open_database(config.example_db, local=local))
    marked = [pair.partition("=")[2] for pair in values["agent_secret_env"]]
    config.secrets = secret_env_values(config.env, marked + target.secrets(config))
    given = values[target.command_option]
    # The command as it ran (its paths made absolute), so a replay started elsewhere finds them.
    config.options = {**values, target.command_option: shlex.join(config.command) if given else given}
    return config

"""The options `replay` and `reproduce` start the agent with: the ones the run recorded (in the
replay file, or in report.json's ``options.given``), with what the user passes again on top.

A run records every option by its name (dest -> value), its agent command made absolute and its
secret values replaced by the redaction marker. A value given again replaces the recorded one;
``K=V`` options (``--env``, ``--header`` …) are merged by name, so ``--secret-env API_KEY=…`` fills
in the one variable the file could not keep. A recorded secret the user does not give again is
taken from the environment when it is set there (the agent inherits it); otherwise the command
refuses, naming what to pass: it never runs without it (an agent whose bug needs the variable
would look FIXED).
"""

from __future__ import annotations

import argparse
import os
import shlex
from typing import Any

from conformance.core.config import UsageError
from conformance.core.options import Option, run_options
from conformance.core.redact import REDACTED
from conformance.targets import TARGETS, named

__all__ = ["add_overrides", "fill_redacted", "merged_values", "recorded_values"]

# Options of a certification that a replay has no use for: it writes no report, keeps no
# baseline and shares no example database.
NOT_REPLAYED = (
    "report_dir",
    "example_db",
    "expected_failures",
    "update_expected_failures",
)
# ``K=V`` options whose later values replace earlier ones of the same name (the environment).
ENV_OPTIONS = ("agent_env", "agent_secret_env")


def _options() -> list[Option]:
    return [*run_options(tuple(t.name for t in TARGETS)), *(o for t in TARGETS for o in t.options)]


def add_overrides(parser: argparse.ArgumentParser) -> None:
    """Every option of a run, each unset unless given: given, it replaces what the run recorded."""
    group = parser.add_argument_group(
        "the run's options, given again (default: as the run recorded them; a K=V option replaces "
        "the recorded entry of the same name)"
    )
    for option in _options():  # the ones a replay has no use for are accepted, and ignored
        keywords = option.keywords()
        keywords["default"] = argparse.SUPPRESS
        group.add_argument(option.flag, **keywords)


def recorded_values(
    recorded: dict[str, Any] | None, legacy_command: list[str], target: str
) -> dict[str, Any]:
    """The run's option values as recorded, over every option's default (a file written before
    options were recorded gives only its command: the rest is the default)."""
    values = {o.dest: ([] if o.action == "append" else o.default) for o in _options()}
    if recorded:
        values.update({k: v for k, v in recorded.items() if k in values})
    elif legacy_command:
        values[named(target).command_option] = shlex.join(legacy_command)
    values["conformance_target"] = target
    return values


def merged_values(values: dict[str, Any], overrides: argparse.Namespace, target: str) -> dict[str, Any]:
    """The recorded values with the user's on top. ``--agent CMD`` names the command of the
    recorded target, whichever that is (``--mcp-cmd`` and ``--http-cmd`` do too)."""
    given = dict(vars(overrides))
    merged = dict(values)
    command_option = named(target).command_option
    for dest in {t.command_option for t in TARGETS}:
        if dest in given:
            merged[command_option] = given.pop(dest)
            merged[named(target).url_option] = None  # a command given again replaces a recorded URL
    for dest, value in given.items():
        if dest not in merged:
            continue
        if isinstance(value, list) and _is_pairs(dest):
            merged[dest] = _merge_pairs(merged.get(dest) or [], value)
        else:
            merged[dest] = value
    # A variable given again with --env or --secret-env replaces the recorded one of either.
    names = {p.partition("=")[0] for dest in ENV_OPTIONS for p in given.get(dest, [])}
    for dest in ENV_OPTIONS:
        if dest not in given:
            merged[dest] = [p for p in merged.get(dest) or [] if p.partition("=")[0] not in names]
    for dest in NOT_REPLAYED:
        merged[dest] = None if dest != "update_expected_failures" else False
    return merged


def _is_pairs(dest: str) -> bool:
    option = next((o for o in _options() if o.dest == dest), None)
    return option is not None and option.action == "append" and option.metavar in ("K=V", "NAME=VALUE")


def _merge_pairs(recorded: list[str], given: list[str]) -> list[str]:
    names = {p.partition("=")[0] for p in given}
    return [p for p in recorded if p.partition("=")[0] not in names] + list(given)


def fill_redacted(values: dict[str, Any], where: str) -> dict[str, Any]:
    """The values with each redacted environment variable left to the environment when it is set
    there; UsageError naming every redacted value that is still needed."""
    flags = {o.dest: o.flag for o in _options()}
    missing: list[str] = []
    filled = dict(values)
    for dest, value in values.items():
        if isinstance(value, list):
            kept = []
            for item in value:
                if not (isinstance(item, str) and REDACTED in item):
                    kept.append(item)
                    continue
                name = item.partition("=")[0]
                if dest in ENV_OPTIONS and name in os.environ:
                    continue  # the agent inherits it
                missing.append(f"{flags.get(dest, dest)} {name}=…")
            filled[dest] = kept
        elif isinstance(value, str) and REDACTED in value:
            missing.append(f"{flags.get(dest, dest)} …")
    if missing:
        variables = ", ".join(m.split(" ", 1)[1].removesuffix("=…") for m in missing)
        raise UsageError(
            f"{where} recorded {variables} with the value redacted; pass it again "
            f"({'; '.join(missing)}), or set it in the environment: without it the agent would not run "
            "as it did"
        )
    return filled

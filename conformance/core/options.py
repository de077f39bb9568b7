"""The options every run has, declared once: the command line (conformance/cli.py) and the pytest
plugin (conformance/pytest/options.py) both build theirs from this table and the targets' own
(each target's ``options``), so flags, defaults and help texts cannot drift apart."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.core import revisions
from conformance.core.config import TRANSPORTS
from conformance.core.profiles import PROFILES

__all__ = ["Option", "add_arguments", "run_options"]


@dataclass(frozen=True)
class Option:
    """One command-line option, for both the command line and pytest."""

    flag: str
    dest: str  # the name pytest's config.getoption() and the command line's namespace use
    help: str
    default: Any = None
    type: Any = None
    choices: tuple[Any, ...] | None = None
    action: str | None = None  # "append" or "store_true"
    metavar: str | None = None
    # Its name under pytest, where that differs (pytest has its own --strict, which implies ours).
    pytest_flag: str | None = None

    @property
    def under_pytest(self) -> str:
        return self.pytest_flag or self.flag

    def keywords(self) -> dict[str, Any]:
        """argparse / pytest addoption keywords (pytest's parser takes argparse's)."""
        found: dict[str, Any] = {"dest": self.dest, "help": self.help, "default": self.default}
        if self.action is not None:
            found["action"] = self.action
        if self.type is not None:
            found["type"] = self.type
        if self.choices is not None:
            found["choices"] = list(self.choices)
        if self.metavar is not None:
            found["metavar"] = self.metavar
        return found

    def argv(self, value: Any) -> list[str]:
        """The value as pytest command-line words (none when it is the default)."""
        flag = self.under_pytest
        if self.action == "store_true":
            return [flag] if value else []
        if self.action == "append":
            return [word for item in value or [] for word in (flag, str(item))]
        return [] if value is None or value == self.default else [flag, str(value)]


def add_arguments(parser: Any, targets: tuple[Any, ...]) -> None:
    """The run's options and each target's (its option group) on an argparse parser."""
    for option in run_options(tuple(t.name for t in targets)):
        parser.add_argument(option.flag, **option.keywords())
    for target in targets:
        group = parser.add_argument_group(target.option_group)
        for option in target.options:
            group.add_argument(option.flag, **option.keywords())


def run_options(targets: tuple[str, ...]) -> tuple[Option, ...]:
    """Options of every run, whatever the target (``targets``: the names --target accepts)."""
    return (
        Option(
            "--target",
            "conformance_target",
            f"what to certify: one of the installed targets ({', '.join(targets)}; the first is the default); "
            "a target's own command or URL option implies it",
            choices=targets,
        ),
        Option(
            "--transport",
            "agent_transport",
            "stdio (default), websocket, or http (Streamable HTTP; for --target http, plain HTTP): the "
            "command then starts a server that prints its URL on stdout",
            default="stdio",
            choices=TRANSPORTS,
        ),
        Option(
            "--cwd",
            "agent_cwd",
            "working directory of the agent and its sessions (default: a fresh sandbox in the report dir)",
            metavar="DIR",
        ),
        Option(
            "--env",
            "agent_env",
            "extra environment variable for the agent (repeatable)",
            default=[],
            action="append",
            metavar="K=V",
        ),
        Option(
            "--secret-env",
            "agent_secret_env",
            "like --env, and the value is redacted from every report (names with KEY/TOKEN/SECRET are anyway)",
            default=[],
            action="append",
            metavar="K=V",
        ),
        Option(
            "--timeout",
            "agent_timeout",
            "seconds to wait for each response (default 10); a server command gets at least 60 s to print its URL",
            default=10.0,
            type=float,
            metavar="SECONDS",
        ),
        Option(
            "--turn-timeout",
            "turn_timeout",
            "seconds a turn (a prompt, with the model's work it sets off, as the target counts it) may take "
            "before its case is not testable (default 300), for a target whose system takes turns; requests "
            "other than prompts wait --timeout",
            default=300.0,
            type=float,
            metavar="SECONDS",
        ),
        Option(
            "--max-prompts",
            "max_prompts",
            "send at most N prompts in the whole run (each is a model call for a real agent); cases that need "
            "one more are not testable. 0: certify what needs no model (default: no cap)",
            type=int,
            metavar="N",
        ),
        Option(
            "--settle",
            "settle",
            "seconds to wait for stray notifications after a status call (default 0.05)",
            default=0.05,
            type=float,
            metavar="SECONDS",
        ),
        Option(
            "--hold",
            "hold",
            "seconds a state the suite relies on (a parked, inactive or evicted session, a pending "
            "instruction) is watched before it is believed to stay (default: the profile's, 3 in ci, 15 in "
            "thorough)",
            type=float,
            metavar="SECONDS",
        ),
        Option(
            "--run-budget",
            "run_budget",
            "seconds for the whole run; cases after it are reported as not run (default 1800)",
            default=1800.0,
            type=float,
            metavar="SECONDS",
        ),
        Option(
            "--spec",
            "conformance_spec",
            "spec revision to check: auto (the default: the revision the system speaks), or one of its "
            "target's: "
            + "; ".join(f"{target} {', '.join(revisions.available(target))}" for target in targets),
            default="auto",
            choices=("auto", *revisions.available()),
            metavar="REVISION",
        ),
        Option(
            "--profile",
            "conformance_profile",
            "budget of the Hypothesis sequence and fuzz cases: ci (derandomized, bounded; default), dev, smoke, "
            "thorough, campaign (a campaign's rounds)",
            default="ci",
            choices=tuple(PROFILES),
        ),
        Option(
            "--seed",
            "conformance_seed",
            "seed of the sequence and fuzz cases (printed by every run)",
            type=int,
            metavar="N",
        ),
        Option(
            "--db",
            "example_db",
            "Hypothesis example database the sequence and fuzz cases share: a folder, or redis://host:port/N; "
            "what it holds (a campaign's findings) is replayed first",
            metavar="DIR|URL",
        ),
        Option(
            "--strict",
            "conformance_strict",
            "count broken SHOULDs (warn) and robustness findings as failures",
            action="store_true",
            # pytest's own --strict implies it there; this name only keeps the two apart
            pytest_flag="--strict-should",
        ),
        Option(
            "--expected-failures",
            "expected_failures",
            "baseline of known failures (TOML or YAML, entries by case id with a reason): only new failures "
            "and stale entries fail the run",
            metavar="FILE",
        ),
        Option(
            "--update-expected-failures",
            "update_expected_failures",
            "write this run's failures to the --expected-failures file (keeping existing reasons)",
            action="store_true",
        ),
        Option(
            "--report-dir",
            "report_dir",
            "where report.json, junit.xml and the other reports go (default reports/<agent>-<timestamp>/)",
            metavar="DIR",
        ),
        Option(
            "--events",
            "conformance_events",
            "write the run's events (run started, target described, each case started and finished, run "
            "finished) to FILE as they happen, one JSON object a line",
            metavar="FILE",
        ),
    )

"""Certify an agent's session/status: run the conformance cases and print a verdict.

The console script `session-status-conformance`; `python -m conformance` and, in the repository,
`python runner.py` do the same.

    session-status-conformance                                  # certify the embedded reference agent
    session-status-conformance --agent "node my-agent.js"       # certify your agent (stdio)
    session-status-conformance --agent "my-agent" -k unknown    # only cases whose id matches
    session-status-conformance --agent "my-agent" -- -n auto    # anything after -- goes to pytest
    session-status-conformance replay reports/<run>/replays/sequence.status.model-based.replay.json
    session-status-conformance matrix reports/*/report.json -o matrix.html   # agents side by side
    session-status-conformance campaign --agent "my-agent" --duration 2h --workers 4 --db redis://host:6379/0
    session-status-conformance reproduce reports/<run>/report.json CASE_ID   # pipe a case's reproduction into a fresh agent

Exit codes: 0 conformant, 1 non-conformant, 2 usage or harness error, 3 not implemented.
"""

from __future__ import annotations

import argparse
import gc
import os
import signal
import sys
import warnings
from pathlib import Path
from typing import Any, NoReturn

from conformance import COMMAND

USAGE_ERROR = 2


class WholeWordsHelp(argparse.HelpFormatter):
    """--help wrapped between words only: an option, a revision or a path is never cut at a hyphen."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        text = " ".join(text.split())
        return textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False)


class OneLineParser(argparse.ArgumentParser):
    """A usage error in one line (not argparse's usage block), with "did you mean" for an option
    it does not know."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", WholeWordsHelp)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        print(f"error: {one_line_usage_error(self, message)}", file=sys.stderr)
        raise SystemExit(USAGE_ERROR)


def one_line_usage_error(parser: argparse.ArgumentParser, message: str) -> str:
    import difflib

    known = [o for action in parser._actions for o in action.option_strings]
    unknown = message.removeprefix("unrecognized arguments: ") if message.startswith("unrecognized") else ""
    said = []
    for word in unknown.split():
        if not word.startswith("-"):
            said.append(f"unexpected argument {word!r}")
            continue
        name = word.split("=", 1)[0]
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        said.append(f"unknown option {name}" + (f" (did you mean {close[0]}?)" if close else ""))
    text = "; ".join(said) if said else message
    return f"{text}; {parser.prog} --help lists the options"


def build_parser() -> argparse.ArgumentParser:
    from conformance.core.options import add_arguments
    from conformance.targets import TARGETS

    p = OneLineParser(
        prog=COMMAND,
        description="Certify an ACP agent's session/status (or, with --mcp-cmd / --mcp-url, an MCP server's "
        "session_heartbeat tool; with --http-url / --http-cmd, a GET /sessions/{id}/status service such as "
        "AgentScope) against the spec.",
        epilog="Exit codes: 0 conformant, 1 non-conformant, 2 usage or harness error, 3 not implemented. "
        f"Subcommands: '{COMMAND} matrix REPORT.json… -o matrix.html' compares runs side by side; "
        f"'{COMMAND} replay FILE.replay.json [--agent CMD]' re-sends a recorded failing sequence; "
        f"'{COMMAND} reproduce REPORT.json CASE_ID' pipes a case's reproduction into a fresh agent; "
        f"'{COMMAND} campaign --duration 2h --workers 4 [--db redis://…] …' fuzzes for a time budget.",
    )
    add_arguments(p, TARGETS)
    p.add_argument("-k", dest="keyword", metavar="EXPR", help="only cases whose id matches EXPR (pytest -k)")
    p.add_argument(
        "-m",
        dest="markexpr",
        metavar="EXPR",
        help="only cases at these levels: must, should, may, robustness (pytest -m)",
    )
    p.add_argument(
        "-n", dest="numprocesses", metavar="N", help="run cases on N workers (pytest-xdist), e.g. auto"
    )
    p.add_argument("--alluredir", metavar="DIR", help="also write Allure results to this folder")
    p.add_argument("-q", "--quiet", action="store_true", help="one character per case instead of one line")
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="pytest's own output: its header, each case's file, the short summary",
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks of harness errors")
    p.add_argument("pytest_args", nargs="*", help="after --: arguments passed to pytest as-is")
    return p


def check_agent_command(agent: str | None, option: str = "--agent", cwd: str | None = None) -> str | None:
    """A one-line problem with the agent command, or None if it can be started."""
    from conformance.core.config import agent_command_problem

    return agent_command_problem(agent, option, cwd)


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
    """Checked before pytest starts, as the plugin would (conformance.targets.configure)."""
    from conformance.core.config import UsageError, url_transport

    if args.agent_url is not None:
        if args.agent is not None:
            return "pass --agent CMD or --agent-url URL, not both"
        try:
            url_transport(args.agent_url)
        except UsageError as exc:
            return str(exc)
    return None


def check_baseline(args: argparse.Namespace) -> str | None:
    if args.update_expected_failures and not args.expected_failures:
        return "--update-expected-failures needs --expected-failures FILE (the file to write)"
    path = Path(args.expected_failures) if args.expected_failures else None
    if path is None or (args.update_expected_failures and not path.exists()):
        return None
    from conformance.core.config import UsageError
    from conformance.reports.baseline import load_baseline

    try:
        load_baseline(path)
    except UsageError as exc:
        return str(exc)
    return None


class _WithoutPytestExitLine:
    """stderr while pytest runs: pytest repeats an exit's message as 'Exit: …' and a usage
    error's as 'ERROR: …'; the runner prints each once, as its last line, 'error: …'."""

    def __init__(self, inner: Any, last_run: dict[str, Any]) -> None:
        self._inner = inner
        self._last_run = last_run

    def write(self, text: str) -> int:
        said = str(self._last_run.get("message", ""))  # what the runner's last line will say
        repeated = text.startswith("Exit: ") or (text.startswith("ERROR: ") and bool(said) and said in text)
        return len(text) if repeated else self._inner.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def check_report_dir(path: str | None) -> str | None:
    """Whether the folder can hold the reports, checked without creating it (a run that selects
    nothing leaves no folder behind)."""
    if path is None:
        return None
    target = Path(path).absolute()
    nearest = next(p for p in (target, *target.parents) if p.exists())
    if not nearest.is_dir():
        return f"--report-dir {path!r} cannot be created: {str(nearest)!r} is a file"
    if not os.access(nearest, os.W_OK | os.X_OK):
        return f"--report-dir {path!r} cannot be created: {str(nearest)!r} is not writable (pass a folder you can write to)"
    return None


def pytest_argv(args: argparse.Namespace) -> list[str]:
    import importlib.util

    from conformance.core.options import run_options
    from conformance.targets import TARGETS

    # Found, not imported: pytest must import the cases itself (assertion rewriting, one registry).
    spec = importlib.util.find_spec("conformance.cases")
    if spec is None or spec.origin is None:
        raise SystemExit(
            "error: the 'conformance.cases' package is not installed; run pip install -e . in the suite's folder"
        )
    cases_dir = Path(spec.origin).parent
    from conformance.core.traceability import case_packages

    # Other distributions' targets bring their own packages of cases.
    others = [str(folder) for name, folder in case_packages().items() if name != "conformance.cases"]
    argv = [
        str(cases_dir),
        *others,
        f"--rootdir={cases_dir.parent}",
        "-p",
        "no:cacheprovider",
        # The command line may import the suite before pytest does (to check a baseline file);
        # the plugin's own modules need no assertion rewriting.
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        *verbosity(args),
    ]
    for option in [*run_options(tuple(t.name for t in TARGETS)), *(o for t in TARGETS for o in t.options)]:
        argv += option.argv(getattr(args, option.dest))
    for flag, value in (("-k", args.keyword), ("-m", args.markexpr), ("-n", args.numprocesses)):
        if value:
            argv += [flag, value]
    if args.alluredir:
        argv += ["--alluredir", args.alluredir]
    return argv + list(args.pytest_args)


def verbosity(args: argparse.Namespace) -> list[str]:
    """pytest's own output for -v; one character per case for -q; else quiet pytest (no header, no
    file paths, no short summary), the plugin printing each case's id and outcome."""
    if args.verbose:
        return ["-v"]
    if args.quiet:
        return ["-q", "-rN"]  # the failures and the summary say which cases failed, without file paths
    return ["-q", "-o", "console_output_style=classic", "-rN"]


def replay_main(argv: list[str]) -> int:
    from conformance.replay.run import main as replay

    try:
        return replay(argv, OneLineParser)
    except SystemExit as exc:  # --help, or a usage error already said in one line
        return int(exc.code or 0)


class Started:
    """The runs one command line started, newest last (each a conformance.pytest.control
    CommandLineRun): what an interrupt's one-line ending says comes from the last of them."""

    def __init__(self) -> None:
        self.runs: list[Any] = []

    @property
    def said(self) -> str:
        """What the last run wrote of how it ended (its partial report's path after an interrupt)."""
        return str(self.runs[-1].last.get("message", "")) if self.runs else ""


def main(argv: list[str] | None = None, started: Started | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["replay"]:
        return replay_main(argv[1:])
    if argv[:1] == ["campaign"]:
        from conformance.campaign.command import main as campaign_main

        return campaign_main(argv[1:])
    if argv[:1] == ["fleet"]:
        from conformance.fleet.command import main as fleet_main

        return fleet_main(argv[1:])
    if argv[:1] == ["matrix"]:
        from conformance.reports.matrix import main as matrix_main

        return matrix_main(argv[1:])
    if argv[:1] == ["reproduce"]:
        from conformance.replay.reproduce import main as reproduce_main

        try:
            return reproduce_main(argv[1:], OneLineParser)
        except SystemExit as exc:
            return int(exc.code or 0)
    from conformance.targets import TARGETS

    parser = build_parser()
    args = parser.parse_args(argv)
    problem = (
        next(
            (
                problem
                for target in TARGETS
                if (
                    problem := check_agent_command(
                        getattr(args, target.command_option),
                        "--" + target.command_option.replace("_", "-"),
                        args.agent_cwd,
                    )
                )
            ),
            None,
        )
        or check_report_dir(args.report_dir)
        or check_cwd(args.agent_cwd)
        or check_env(args.agent_env + args.agent_secret_env)
        or check_target(args)
    )
    if not problem:
        problem = check_baseline(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return USAGE_ERROR
    if args.mcp_protocol == "both":
        return certify_each_era(args, started or Started())
    return certify(args, started or Started())


def certify(args: argparse.Namespace, started: Started) -> int:
    """One run of the suite (pytest in-process), its verdict line printed last; its exit code."""
    import pytest

    from conformance.pytest.control import CommandLineRun

    run = CommandLineRun(one_line_endings=True, line_per_case=not (args.quiet or args.verbose))
    started.runs.append(run)
    stderr = sys.stderr
    sys.stderr = _WithoutPytestExitLine(stderr, run.last)
    try:
        code = pytest.main(pytest_argv(args), plugins=[run])
    finally:
        sys.stderr = stderr
    # An interrupt leaves pytest's hook wrappers half run: closed at exit, each would warn that its
    # teardown raised GeneratorExit, after the run's last line. They are closed here, unheard.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gc.collect()
    last = run.last
    if last.get("verdict") is not None:
        # The page a person opens; report.json and the others are beside it.
        page = Path(last["report"]).with_name("report.html")
        if last.get("next"):
            print(last["next"], file=sys.stderr)
        print(f"{last['line']} — report: {page}", file=sys.stderr)
        return last["exit_code"]
    if last.get("message"):
        print(f"error: {last['message']}", file=sys.stderr)
    elif code == pytest.ExitCode.USAGE_ERROR or code == pytest.ExitCode.NO_TESTS_COLLECTED:
        print(
            f"error: usage error (see the message above); {COMMAND} --help lists the options",
            file=sys.stderr,
        )
    elif code == pytest.ExitCode.INTERRUPTED:
        print("error: the run was interrupted before a verdict", file=sys.stderr)
    else:
        print(f"error: pytest ended with code {int(code)} and no verdict", file=sys.stderr)
    return USAGE_ERROR


# Exit codes of several runs, the one that tells most first: a verdict, then an error, then
# "not implemented", then conformant.
SEVERITY = (1, 2, 3, 0)


def certify_each_era(args: argparse.Namespace, started: Started) -> int:
    """--mcp-protocol both: the suite once per MCP era (2025-06-18 through initialize, 2026-07-28
    through server/discover), each run into a folder of its own under the report folder, then a
    matrix of the two beside them. Each run's verdict line is printed; the last line compares the
    eras (a case they answer differently is named: the tool's contract does not depend on the
    wire). The exit code is the one that tells most: non-conformant in either era is 1."""
    from conformance.pytest.plugin import run_label
    from conformance.reports.matrix import MatrixError, load_columns, matrix_html, matrix_markdown
    from conformance.reports.report import default_report_dir
    from conformance.targets import named

    target = "mcp"
    if args.conformance_target not in (None, target):
        print(
            f"error: --mcp-protocol both certifies an MCP server, not --target {args.conformance_target}",
            file=sys.stderr,
        )
        return USAGE_ERROR
    label = run_label(target, args.agent_transport, args.mcp_cmd, args.mcp_url)
    base = Path(args.report_dir) if args.report_dir else default_report_dir(label)
    codes: dict[str, int] = {}
    reports: dict[str, Path] = {}
    for era in named(target).wire_eras:
        one = argparse.Namespace(**vars(args))
        one.mcp_protocol, one.report_dir, one.conformance_target = era, str(base / era), target
        print(f"== MCP {era} ==", file=sys.stderr)
        codes[era] = certify(one, started)
        path = base / era / "report.json"
        if path.is_file():
            reports[era] = path
        last = started.runs[-1].last if started.runs else {}
        if last.get("verdict") is None and codes[era] == USAGE_ERROR and last.get("message") is None:
            break  # a usage error (printed): the other era would say the same
    code = next(c for c in SEVERITY if c in codes.values())
    matrix = ""
    try:
        columns = load_columns(list(reports.values()))
    except MatrixError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    if columns:
        html_path, md_path = base / "matrix.html", base / "matrix.md"
        html_path.write_text(matrix_html(columns, base.resolve()), encoding="utf-8")
        md_path.write_text(matrix_markdown(columns, base.resolve()), encoding="utf-8")
        matrix = f" — matrix: {html_path} ({md_path})"
    print(f"{eras_line(codes, columns)}{matrix}", file=sys.stderr)
    return code


def eras_line(codes: dict[str, int], columns: list[Any]) -> str:
    """The two eras' verdicts in one line, and the cases whose outcome differs between them (a
    case not applicable in one era, such as the stateless era's server identity, is no difference)."""
    words = {0: "conformant", 1: "NON-CONFORMANT", 2: "no verdict (error)", 3: "not implemented"}
    verdicts = "; ".join(f"MCP {era}: {words.get(c, c)}" for era, c in codes.items())
    if len(columns) < 2:
        return f"{verdicts}; the eras cannot be compared: one run wrote no report"
    first, second = (c.outcomes for c in columns[:2])
    differ = [
        f"{case} ({first[case]['outcome']} / {second[case]['outcome']})"
        for case in sorted(set(first) & set(second))
        if first[case]["outcome"] != second[case]["outcome"]
        and "n/a" not in (first[case]["outcome"], second[case]["outcome"])
    ]
    if not differ:
        return f"{verdicts}; every case that applies to both eras has the same outcome in both"
    shown = ", ".join(differ[:8]) + (", …" if len(differ) > 8 else "")
    return f"{verdicts}; {len(differ)} case(s) differ between the eras ({' / '.join(codes)}): {shown}"


def stop_on_signals() -> None:
    """SIGTERM (a CI job's timeout) and SIGHUP (a closed terminal) stop a run or a campaign as
    Ctrl-C does: the partial report, marked incomplete, its path printed, the agent's process
    group ended, exit 2. A signal the caller chose to ignore (nohup) stays ignored."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, signal.default_int_handler)


def run() -> None:
    """The console script: main() with one-line messages for interrupts and unexpected errors."""
    if os.environ.get("CONFORMANCE_ROUND_SECONDS") and signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # A campaign's round: the campaign ends it with SIGINT (and gets its partial report), even
        # where the campaign itself runs with SIGINT ignored (a background CI step).
        signal.signal(signal.SIGINT, signal.default_int_handler)
    stop_on_signals()
    started = Started()
    try:
        sys.exit(main(started=started))
    except KeyboardInterrupt:
        said = started.said  # a run's partial report
        print(f"error: {said if said.startswith('interrupted') else 'interrupted'}", file=sys.stderr)
        sys.exit(USAGE_ERROR)
    except Exception as exc:
        interrupted = started.said
        if interrupted.startswith("interrupted") and "--debug" not in sys.argv:
            # Ctrl-C, then pytest failed formatting it: the partial report is written all the same.
            print(f"error: {interrupted}", file=sys.stderr)
            sys.exit(USAGE_ERROR)
        if "--debug" in sys.argv:
            raise
        print(f"error: {type(exc).__name__}: {exc} (run with --debug for the traceback)", file=sys.stderr)
        sys.exit(USAGE_ERROR)


if __name__ == "__main__":
    run()

"""The pytest plugin (entry point ``pytest11``): pytest's adapter of the engine (conformance.run).

A run is a conformance run when it collects case files (``pytest cases --agent CMD``). pytest
keeps its options, collection, ``-k`` / ``-m`` and xdist; the engine does the rest: the
controller runs its pre-flight at session start (the agent started once: a command that cannot
start or initialize ends the run, exit 2, not 40 failing cases), each case item is one engine
case step (sorted into the engine's one order; each xdist worker has its own agent process), and
the session's end is the engine's end (its verdict, and the report files its handlers write).
The report is merged on the controller from the per-case entries that travel with pytest's
reports, so ``-n auto`` gives one report.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from conformance.core import revisions
from conformance.core.config import AgentConfig, UsageError, agent_command_problem, url_transport
from conformance.core.options import run_options
from conformance.core.outcomes import TERMINAL, CaseSignal, Outcome, Verdict
from conformance.core.redact import redact
from conformance.core.registry import CASES, Level
from conformance.core.traceability import case_packages
from conformance.events import Handler, RunFinished
from conformance.handlers import EventLines, JUnitFile, ReportFiles
from conformance.pytest.control import command_line_of
from conformance.pytest.items import (
    CaseItem,
    CaseModule,
    import_case_module,
    is_case_file,
)
from conformance.pytest.keys import (
    ACTIVE,
    AGENT,
    BASELINE,
    COLLECTED,
    CREATED,
    INTERRUPTED,
    NOTHING_SELECTED,
    REPORT,
    REPORT_DIR,
    REPORT_PATH,
    REVISION,
    RUN,
    SIGNALS,
    strict,
)
from conformance.pytest.options import pytest_addoption  # noqa: F401 - the hook, registered with this plugin
from conformance.reports.baseline import (
    Baseline,
    did_you_mean,
    load_baseline,
)
from conformance.reports.records import CaseOutcome
from conformance.reports.report import RunReport, default_report_dir
from conformance.run import Run, choose_seed, in_order, selection_record
from conformance.targets import TARGETS, chosen, configure, default, named
from conformance.targets.turns import new_ledger

SPEC_CHOICES = ("auto", *revisions.available())
# A CI job's timeout sends SIGTERM, a closed terminal SIGHUP: each stops a run as Ctrl-C does (the
# partial report, marked incomplete, its path printed, the agent's process group ended).
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _configure(config: pytest.Config) -> None:
    for level in Level:
        config.addinivalue_line("markers", f"{level.marker}: conformance case at level {level.value}")
        config.addinivalue_line("markers", f"{level.value}: conformance case at level {level.value}")
    config.addinivalue_line("markers", "conformance: a session/status conformance case")
    config.addinivalue_line(
        "markers",
        "slow: a conformance case that takes seconds (a sequence, a fuzzer, a restart, a timed turn)",
    )
    config.stash[ACTIVE] = _is_conformance_run(config)
    config.pluginmanager.register(RunListener(config), f"session-status-conformance-run-{id(config)}")
    if not hasattr(config, "workerinput"):
        command_line_of(config).last.clear()
    if not config.stash[ACTIVE]:
        return
    worker = getattr(config, "workerinput", None)
    if worker is not None:
        if "conformance_report_dir" not in worker:
            return  # the controller is not certifying (a worker of the project's own tests)
        report_dir = Path(worker["conformance_report_dir"])
    else:
        report_dir = _made_report_dir(config)
    config.stash[REPORT_DIR] = report_dir
    _keep_hypothesis_files_in(report_dir)
    if worker is not None:
        config.option.conformance_seed = worker["conformance_seed"]
        config.stash[REVISION] = worker["conformance_revision"]
    else:
        config.option.conformance_seed = choose_seed(
            cast(str, config.getoption("conformance_profile")),  # declared with a default ("ci")
            config.getoption("conformance_seed"),
        )
    if config.getoption("conformance_spec") not in SPEC_CHOICES:
        raise pytest.UsageError(
            f"--spec {config.getoption('conformance_spec')!r} is not a known revision: use one of {', '.join(SPEC_CHOICES)}"
        )
    config.stash[AGENT] = agent_config = _run_agent_config(config, report_dir, worker)
    config.stash[BASELINE] = baseline = _baseline(config)
    handlers: list[Handler] = []
    if worker is None:  # the controller writes the run's files, from the events of its end
        handlers.append(ReportFiles())
        if config.option.xmlpath:
            handlers.append(JUnitFile(Path(config.option.xmlpath)))
        if events := config.getoption("conformance_events"):
            handlers.append(_event_lines(config, Path(events)))
    config.stash[RUN] = run = Run.begin(
        agent_config,
        strict=strict(config),
        report_dir=report_dir,
        revision=worker["conformance_revision"] if worker is not None else None,
        baseline=baseline,
        update_baseline=bool(config.getoption("update_expected_failures")),
        handlers=handlers,
    )
    if worker is None:
        config.stash[REPORT] = run.report
        _stop_on_signals(config)


def _event_lines(config: pytest.Config, path: Path) -> EventLines:
    """--events FILE: the run's events as JSON lines, the file closed with the run."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        stream = path.open("w", encoding="utf-8")
    except OSError as exc:
        raise pytest.UsageError(f"--events {path}: cannot write it ({exc.strerror or exc})") from exc
    config.add_cleanup(stream.close)
    return EventLines(stream)


def _made_report_dir(config: pytest.Config) -> Path:
    """The controller's report folder, made (and the JUnit file put in it unless --junitxml says
    where); a command that cannot start is said before anything is made (no report folder is left)."""
    target = chosen(_values(config))
    problem = agent_command_problem(
        config.getoption(target.command_option),
        "--" + target.command_option.replace("_", "-"),
        config.getoption("agent_cwd"),
    )
    if problem:
        raise pytest.UsageError(problem)
    report_dir = Path(config.getoption("report_dir") or default_report_dir(_agent_label(config)))
    config.stash[CREATED] = not report_dir.exists()
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise pytest.UsageError(
            f"--report-dir {str(report_dir)!r} cannot be created ({exc.strerror}): pass a folder you can write to"
        ) from None
    if config.option.xmlpath is None:
        config.option.xmlpath = str(report_dir / "junit.xml")
    return report_dir


def _run_agent_config(config: pytest.Config, report_dir: Path, worker: dict[str, Any] | None) -> AgentConfig:
    """The agent's configuration from the options, with the prompt ledger the run's workers share."""
    try:
        agent_config = _agent_config(config, report_dir)
    except UsageError as exc:
        raise pytest.UsageError(str(exc)) from None
    if agent_config.max_prompts is not None:
        # One count for the run's workers (each has its own agent): the cap holds for the run.
        agent_config.prompt_ledger = (
            worker["conformance_prompt_ledger"]
            if worker is not None
            else new_ledger(report_dir / "sandbox" / "prompts.ledger")
        )
    return agent_config


def _stop_on_signals(config: pytest.Config) -> None:
    """SIGTERM and SIGHUP end the run as Ctrl-C does (pytest only turns SIGINT into an interrupt)."""
    if threading.current_thread() is not threading.main_thread():
        return
    replaced = {}
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) is signal.SIG_IGN:  # the caller chose to ignore it (nohup)
            continue
        with contextlib.suppress(ValueError, OSError):
            replaced[sig] = signal.signal(sig, signal.default_int_handler)
    config.stash[SIGNALS] = replaced


def pytest_configure(config: pytest.Config) -> None:
    try:
        _configure(config)
    except pytest.UsageError as exc:  # the command line's last line says it, not "usage error"
        command_line_of(config).last["message"] = str(exc)
        raise


# pytest_configure above must run before junitxml reads xmlpath.
pytest_configure = pytest.hookimpl(tryfirst=True)(pytest_configure)


def _baseline(config: pytest.Config) -> Baseline | None:
    option = config.getoption("expected_failures")
    update = config.getoption("update_expected_failures")
    if option is None:
        if update:
            raise pytest.UsageError(
                "--update-expected-failures needs --expected-failures FILE (the file to write)"
            )
        return None
    path = Path(option)
    if update and not path.exists():
        return Baseline(path)
    try:
        return load_baseline(path)
    except UsageError as exc:
        raise pytest.UsageError(str(exc)) from None


def _values(config: pytest.Config) -> dict[str, Any]:
    """Every conformance option's value, by dest."""
    options = [*run_options(tuple(t.name for t in TARGETS)), *(o for t in TARGETS for o in t.options)]
    return {o.dest: config.getoption(o.dest) for o in options}


def _is_conformance_run(config: pytest.Config) -> bool:
    values = _values(config)
    if values["conformance_target"] is not None:
        return True
    if any(values[t.command_option] is not None or values[t.url_option] is not None for t in TARGETS):
        return True
    for arg in config.args:
        name = arg.split("::")[0]
        path = Path(name)
        if (path.is_dir() and path.name == "cases") or is_case_file(path):
            return True
        if name == "conformance.cases" or name.startswith("conformance.cases."):  # pytest --pyargs
            return True
    return False


def _agent_label(config: pytest.Config) -> str:
    """The default report folder's name: what runs (the agent's script, module or program, not
    its interpreter), the target and the transport, so runs of several agents read apart."""
    values = _values(config)
    target = chosen(values)
    return run_label(
        target.name,
        target.fixed_transport or values.get("agent_transport") or "stdio",
        config.getoption(target.command_option),
        config.getoption(target.url_option),
    )


def run_label(target: str, transport: str, command: str | None, url: str | None) -> str:
    """`PROGRAM-TARGET-TRANSPORT` (for a server already running: its host and port, and the
    transport its URL's scheme names, for targets with more than one); "reference" for the
    default run."""
    if command is not None:
        name = command_name(command)
    elif url is not None:
        name = re.sub(r"^\w+://", "", str(url)).split("/")[0]
        if named(target).fixed_transport is None:
            with contextlib.suppress(UsageError):  # a bad URL is reported where the run is configured
                transport = url_transport(str(url))
    else:
        name = "reference"
    if target == default().name and name == "reference" and transport == "stdio":
        return "reference"
    return f"{name}-{target}-{transport}"


_RUNNERS = re.compile(r"(python|pypy|node|nodejs|npx|bunx?|deno|uvx?|pipx|env|sh|bash|exec|run)[0-9.]*")


def command_name(command: str) -> str:
    """The program a command runs, without its interpreter: `python agents/x.py` is "x",
    `python -m pkg.agent` is "pkg.agent", `npx @org/codex-acp` is "codex-acp"."""
    words = command.split()
    for index, word in enumerate(words):
        if word == "-m" and index + 1 < len(words):
            return words[index + 1].removeprefix("conformance.")
        if word.startswith("-") or "=" in word or _RUNNERS.fullmatch(Path(word).name):
            continue
        return (
            Path(word).name.rsplit(".", 1)[0]
            if Path(word).suffix in (".py", ".js", ".mjs", ".ts")
            else Path(word).name
        )
    return "agent"


def _agent_config(config: pytest.Config, report_dir: Path) -> AgentConfig:
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    return configure(_values(config), report_dir / "sandbox" / worker, report_dir)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist: every worker writes into the controller's report dir."""
    report_dir = node.config.stash.get(REPORT_DIR, None)
    if report_dir is not None:
        node.workerinput["conformance_report_dir"] = str(report_dir)
        node.workerinput["conformance_seed"] = node.config.getoption("conformance_seed")
        node.workerinput["conformance_revision"] = node.config.stash[REVISION]
        agent = node.config.stash.get(AGENT, None)
        if agent is not None and agent.prompt_ledger is not None:
            node.workerinput["conformance_prompt_ledger"] = agent.prompt_ledger


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if is_case_file(file_path):
        return CaseModule.from_parent(parent, path=file_path)
    return None


def pytest_itemcollected(item: pytest.Item) -> None:
    if isinstance(item, CaseItem):  # every case, before -k / -m deselect any
        item.config.stash.setdefault(COLLECTED, set()).add(item.case.id)


def _check_baseline_ids(config: pytest.Config) -> None:
    baseline = config.stash.get(BASELINE, None)
    if baseline is None:
        return
    collected = config.stash.get(COLLECTED, set())
    unknown = sorted(set(baseline.entries) - collected)
    if unknown:
        named = "; ".join(f"{u}{did_you_mean(u, collected)}" for u in unknown)
        last = command_line_of(config).last
        last["message"] = f"{baseline.path} lists case ids this suite does not have: {named}"
        pytest.exit(last["message"], returncode=2)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    _check_baseline_ids(config)
    _in_the_suites_order(items)
    if config.stash.get(ACTIVE, False) and not any(isinstance(i, CaseItem) for i in items):
        last = command_line_of(config).last
        last["message"] = (
            "no conformance case selected: check the -k / -m expression (ids look like "
            "status.error.unknown-session-code; levels: must, should, may, robustness)"
        )
        config.stash[NOTHING_SELECTED] = True
        pytest.exit(last["message"], returncode=2)


def _in_the_suites_order(items: list[pytest.Item]) -> None:
    """The cases in the engine's one order (conformance.run.in_order), in the places pytest gave
    its case items; any other item stays where it is."""
    places = [n for n, item in enumerate(items) if isinstance(item, CaseItem)]
    by_id = {item.case.id: item for item in items if isinstance(item, CaseItem)}
    if len(by_id) != len(places):  # a case collected twice (a file given twice): pytest's order
        return
    for place, case in zip(places, in_order(cast(CaseItem, items[n]).case for n in places), strict=True):
        items[place] = by_id[case.id]


def pytest_unconfigure(config: pytest.Config) -> None:
    """A run that selected nothing leaves no report folder behind (it made one to hold reports)."""
    for sig, handler in config.stash.get(SIGNALS, {}).items():
        with contextlib.suppress(ValueError, OSError, TypeError):
            signal.signal(sig, handler)
    report_dir = config.stash.get(REPORT_DIR, None)
    if config.stash.get(NOTHING_SELECTED, False) and config.stash.get(CREATED, False) and report_dir:
        shutil.rmtree(report_dir, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)  # before xdist starts workers: they need the revision
def pytest_sessionstart(session: pytest.Session) -> None:
    """The engine's pre-flight, on the controller: a target that cannot start ends the run here
    (its report and JUnit file written by the run's handlers)."""
    config = session.config
    last = command_line_of(config).last
    if not config.stash.get(ACTIVE, False) or hasattr(config, "workerinput") or config.option.collectonly:
        return
    run = config.stash[RUN]
    try:
        started = run.start(
            cast(str, config.getoption("conformance_spec"))
        )  # declared with a default ("auto")
    except CaseSignal as exc:  # --spec names another target's revision
        last["message"] = exc.message
        pytest.exit(exc.message, returncode=2)
    except BaseException:  # Ctrl-C while it starts: pytest calls no pytest_sessionfinish then
        if run.report_dir is not None and run.report.written is not None:
            path = run.report_dir / "report.json"
            last["message"] = f"interrupted: partial report (marked incomplete) in {path}"
        raise
    if isinstance(started, RunFinished):
        path = str(started.path)
        if started.verdict is Verdict.UNIMPLEMENTED:  # initialize said enough: the agent has no status method
            last.update(verdict=started.verdict, exit_code=started.exit_code, line=started.line, report=path)
            pytest.exit(started.line, returncode=started.exit_code)
        last.update(message=started.line, report=path)
        pytest.exit(started.line, returncode=2)
    config.stash[REVISION] = started.revision
    if config.pluginmanager.has_plugin("dsession"):
        run.close()  # workers start their own agents


def _keep_hypothesis_files_in(report_dir: Path) -> None:
    """Hypothesis keeps files in `.hypothesis/` of the working directory: what it derives from the
    Python installation (its Unicode tables, the constants of modules it has read; a run in a new
    folder would rebuild them, seconds of CPU) goes to the user's cache instead, shared by runs,
    unless HYPOTHESIS_STORAGE_DIRECTORY names a place. The runs' example databases are their own
    (the profiles name them), so nothing of a run's lands there; a cache that cannot be made puts
    the files in the run's report folder."""
    import os

    from hypothesis.configuration import set_hypothesis_home_dir

    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    home = hypothesis_home(report_dir)
    set_hypothesis_home_dir(home)


def user_cache() -> Path:
    """The suite's cache of the user: $XDG_CACHE_HOME, else ~/.cache."""
    import os

    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "session-status-conformance"


def hypothesis_home(report_dir: Path) -> Path:
    """The shared Hypothesis folder in the user's cache, made; the report folder's where it cannot be."""
    shared = user_cache() / "hypothesis"
    try:
        shared.mkdir(parents=True, exist_ok=True)
    except OSError:
        return report_dir / ".hypothesis"
    return shared


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    report = outcome.get_result()
    if not isinstance(item, CaseItem) or call.when != "call":
        return
    case = item.case
    secrets = item.config.stash[AGENT].secrets
    if item.entry is None:  # the harness failed before the case produced a record
        exc = call.excinfo.value if call.excinfo else None
        run = item.config.stash[RUN]
        item.entry = run.entry(case, None, error=f"harness error: {exc!r}", duration=call.duration)
    result = item.entry
    result.nodeid = item.nodeid
    # The record crosses from an xdist worker with the report: as report.json holds it.
    report.conformance = result.to_json()
    report.user_properties.append(("outcome", result.outcome))
    if isinstance(report.longrepr, str):
        report.longrepr = redact(report.longrepr, secrets)
    baseline = item.config.stash.get(BASELINE, None)
    if not baseline:
        return
    mark = result.baseline
    if mark == "known":  # shown and counted by pytest (terminal, junit, allure) as xfailed
        report.outcome = "skipped"
        report.wasxfail = f"known failure in {baseline.path}: {baseline.entries[case.id]}"
    elif mark == "stale":
        report.outcome = "failed"
        report.longrepr = (
            f"{case.id}: stale entry in {baseline.path}: the case no longer fails ({result.outcome}), so the "
            "baseline no longer describes this agent; remove the entry (or rerun with --update-expected-failures)"
        )


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    data = getattr(report, "conformance", None)
    if data is None or report.when != "call":
        return None
    if data.get("baseline") == "known":
        status = "xfailed", "x", f"KNOWN {data['outcome'].upper()}"
    elif data.get("baseline") == "stale":
        # It passes: a baseline entry to remove, counted as what it is, not among the failures.
        status = "stale", "S", "STALE BASELINE ENTRY"
    else:
        status = TERMINAL[Outcome(data["outcome"])]
    if command_line_of(config).line_per_case:
        return status[0], "", status[2]  # the line is the plugin's own (pytest_runtest_logreport)
    return status


class RunListener:
    """The hooks pytest calls without the run's config, for one run (registered with its config)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        config = self.config
        data = getattr(report, "conformance", None)
        run_report = config.stash.get(REPORT, None) if config.stash.get(ACTIVE, False) else None
        if data is not None and report.when == "call" and run_report is not None:
            config.stash[RUN].case_finished(CaseOutcome.from_json(data))
            if command_line_of(config).line_per_case:
                terminal = config.pluginmanager.get_plugin("terminalreporter")
                if terminal is not None:
                    _, _, word = pytest_report_teststatus(report, config) or ("", "", "")
                    terminal.write_line(f"{data['id']} {word}")

    @pytest.hookimpl(wrapper=True)  # around the terminal, which formats the interrupt's traceback
    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:
        config = self.config
        if not isinstance(excinfo.value, pytest.exit.Exception):
            config.stash[INTERRUPTED] = True  # pytest's exit status is lost if formatting then fails
            run = config.stash.get(RUN, None)
            if run is not None and run.running:
                run.runtime.interrupt()
        result = yield
        if config.stash.get(ACTIVE, False) and command_line_of(config).one_line_endings:
            # The command line says what happened in one line (our own exits, and Ctrl-C: "interrupted:
            # partial report …"); the terminal's "! _pytest.outcomes.Exit" and traceback would repeat it.
            terminal = config.pluginmanager.get_plugin("terminalreporter")
            if terminal is not None and hasattr(terminal, "_report_keyboardinterrupt"):
                terminal._report_keyboardinterrupt = lambda: None
        return result


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> Iterator[None]:
    """Ctrl-C while the session finishes (junitxml, then the report) is held off: the cases have
    run, and pytest does not catch it here, so it would lose the report (a campaign that stops a
    round which has just found a failure would be told that no round wrote a report). The run ends
    as soon as the report is out."""
    if threading.current_thread() is not threading.main_thread():
        return (yield)
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, *STOP_SIGNALS)}
    try:
        return (yield)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, signal.default_int_handler if handler is None else handler)


# After junitxml has written its file, which the run's JUnitFile handler rewrites (pytest takes
# hooks by their prefix).
@pytest.hookimpl(trylast=True, specname="pytest_sessionfinish")
def pytest_sessionfinish_writes_the_report(session: pytest.Session, exitstatus: int) -> None:
    """The engine's end of the run: its verdict, and the report its handlers write."""
    config = session.config
    run = config.stash.get(RUN, None)
    if run is not None:
        run.close()
    report = config.stash.get(REPORT, None)
    if run is None or report is None or hasattr(config, "workerinput"):
        return
    last = command_line_of(config).last
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED or config.stash.get(INTERRUPTED, False)
    incomplete = interrupted and "message" not in last  # not our own exit
    if not incomplete and not report.cases:
        return
    selection = (
        None if incomplete else _selection(config, report, session.shouldfail or session.shouldstop or None)
    )
    finished = run.finish(incomplete=incomplete, selection=selection)
    assert finished.path is not None  # the plugin's run has a report folder
    config.stash[REPORT_PATH] = finished.path
    if finished.incomplete:
        last["message"] = f"interrupted: partial report (marked incomplete) in {finished.path}"
    elif exitstatus in (0, 1):  # keep pytest's own codes for usage errors
        session.exitstatus = finished.exit_code
        last.update(
            verdict=finished.verdict,
            exit_code=finished.exit_code,
            line=finished.line,
            report=str(finished.path),
            next=report.next_step,
        )


def _selection(config: pytest.Config, report: RunReport, stopped: str | bool | None) -> dict[str, Any] | None:
    """What the run selected, when it is not every case of its target: a partial run gets no
    certificate. Every case file beside the ones collected counts, so `pytest cases/x.py` and
    `pytest cases -k …` are partial alike. A run pytest stopped early (-x, --maxfail: ``stopped``
    is its reason) is partial too: the cases after the stop did not run."""
    folders = {_arg_path(str(a).split("::")[0]) for a in config.args}
    folders = {f if f.is_dir() else f.parent for f in folders if f is not None and f.exists()}
    every: set[str] = set()
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            if is_case_file(path):
                module = import_case_module(path, report.target)
                every |= {c.id for c in CASES.values() if c.module == module and c.target == report.target}
    return selection_record(
        every,
        {c.id for c in report.cases},
        keyword=config.option.keyword,
        markers=config.option.markexpr,
        args=[str(a) for a in config.args if "::" in str(a) or str(a).endswith(".py")],
        stopped=stopped,
    )


def _arg_path(arg: str) -> Path | None:
    """Where a command-line argument points: a path, or (pytest --pyargs) a module of the cases."""
    if Path(arg).exists():
        return Path(arg).resolve()
    for package, folder in case_packages().items():
        if arg == package or arg.startswith(package + "."):
            inner = folder.joinpath(*arg[len(package) :].split(".")[1:])
            return inner if inner.is_dir() else inner.with_suffix(".py")
    return None


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    report = config.stash.get(REPORT, None)
    if report is None or not report.cases:
        return
    terminalreporter.section(f"{report.subject} conformance")
    for line in report.summary_lines():
        terminalreporter.write_line(line)
    path = config.stash.get(REPORT_PATH, None)
    if path is not None:
        terminalreporter.write_line(
            f"report: {Path(path).with_name('report.html')} (report.json, summary.md and junit.xml beside it)"
        )
    if report.next_step and not command_line_of(config).one_line_endings:  # the command line says it last
        terminalreporter.write_line(report.next_step)
    sys.stdout.flush()

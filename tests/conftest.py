"""Helpers for the project's own tests: run the suite against an agent and read its report."""

from __future__ import annotations

import atexit
import contextlib
import gc
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import venv
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.transport.process import URL

# The tests start a few hundred Python processes (runs, agents, servers): each compiles the
# project's modules again, and pytest rewrites the plugin's, unless bytecode may be cached. A
# machine that sets PYTHONDONTWRITEBYTECODE pays seconds per start; __pycache__ is git-ignored.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ROOT / "tests" / "agents"
RUNNER = ROOT / "runner.py"
REFERENCE_MODULE = "conformance.reference.acp.agent"
REFERENCE_AGENT = [sys.executable, "-m", REFERENCE_MODULE]

pytest_plugins = ["pytester"]


def longest_tests() -> dict[str, float]:
    """tests/longest.txt: node id -> the seconds it took, longest first."""
    lines = (ROOT / "tests" / "longest.txt").read_text().splitlines()
    rows = [line.split(None, 1) for line in lines if line.strip() and not line.startswith("#")]
    return {node: float(seconds) for seconds, node in rows}


def venv_with_these_dependencies(env_dir: Path, *, with_pip: bool) -> Path:
    """A new virtual environment that imports its dependencies from this one (a .pth line), so
    that installing the suite into it needs no network; its python."""
    venv.create(env_dir, with_pip=with_pip)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(purelib) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The long tests first, longest first (tests/longest.txt), then the rest of end to end and
    those marked slow: started last, one of them would keep a worker busy after the others have
    finished (xdist's worksteal hands out queued tests, never a running one)."""
    seconds = longest_tests()

    def order(item: pytest.Item) -> tuple[int, float]:
        if item.nodeid in seconds:
            return 0, -seconds[item.nodeid]
        return (1 if "e2e" in item.path.parts or item.get_closest_marker("slow") else 2), 0

    items.sort(key=order)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What the imports and collection built lives as long as this process (an xdist worker runs
    a few hundred certifications in it): left out of the collector's full passes, which then walk
    only what the tests make."""
    gc.freeze()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` for the project's tests: three workers per core. Most of a test's time is spent
    waiting on the agents it starts (their replies, quiet windows, timeouts, restarts), not
    computing: on two cores a whole run with five workers kept them 65 % busy (486 s), with six
    75 % (446 s)."""
    return max(2, (os.cpu_count() or 1) * 3)


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    report: dict[str, Any] | None
    report_dir: Path | None = None

    @property
    def outcomes(self) -> dict[str, str]:
        assert self.report is not None, f"no report.json; stderr: {self.stderr[-2000:]}"
        return {c["id"]: c["outcome"] for c in self.report["cases"]}

    def case(self, case_id: str) -> dict[str, Any]:
        assert self.report is not None
        return next(c for c in self.report["cases"] if c["id"] == case_id)

    def diff(self, expected: dict[str, str]) -> str:
        """Which outcomes differ, each with the report's message and last frames (what CI shows)."""
        got = self.outcomes
        lines = [outcome_diff(expected, got)]
        for case_id in sorted(k for k in got if expected.get(k) != got[k]):
            entry = self.case(case_id)
            lines.append(f"--- {case_id} ({entry['outcome']}): {str(entry.get('message') or '')[:600]}")
            steps = (entry.get("details") or {}).get("sequence")  # a sequence's steps, as shrunk
            if isinstance(steps, list):
                lines += [f"    step {str(step)[:200]}" for step in steps[:40]]
            for frame in (entry.get("transcript") or [])[-8:]:
                arrow = "-->" if frame.get("dir") == "send" else "<--"
                lines.append(f"    {frame.get('t')} {arrow} {frame.get('frame')}"[:300])
        fatal = (self.report or {}).get("fatal")
        return "\n".join(lines) + f"\nexit {self.code}; fatal: {fatal}; stderr: {self.stderr[-600:]}"

    def assert_explained(self, delta: dict[str, str]) -> None:
        """Every case a broken agent makes fail or warn says why, with the frames that show it, and
        quotes the sentence the requirement audit names for this variant and check."""
        for case_id, outcome in delta.items():
            if outcome in ("fail", "warn"):
                got = self.case(case_id)
                assert got["message"], f"{case_id} failed without saying why"
                assert got["transcript"], f"{case_id} failed without a transcript"
        assert self.report is not None
        assert misquoted(self.report) == [], "a failure quotes another sentence than its audit entry"


def variant_of(report: dict[str, Any]) -> str | None:
    """The tests/agents variant a run certified (``acp/…``, ``mcp/…``, ``http/…``), from its
    command: the audit names variants so."""
    for word in report["system"]["command"]:
        path = Path(word)
        if path.suffix == ".py" and path.is_relative_to(AGENTS):
            return str(path.relative_to(AGENTS).with_suffix(""))
    return None


def misquoted(report: dict[str, Any]) -> list[str]:
    """Where a variant the requirement audit names fails the check the audit names for it (the
    `breaks` of cases/revisions/*.toml: its `by` case, and rule if it names one), the sentence the
    failure quotes must be the one that break is listed under (or one of them, where the audit lists
    the same variant and check under several sentences)."""
    from conformance.core import revisions

    variant = variant_of(report)
    if variant is None:
        return []
    revision = revisions.get(report["spec"]["revision"])  # parsed once per process
    audited: dict[tuple[str, str], set[str]] = {}
    for req in revision.requirements:
        for b in req.breaks:
            if b.by and b.variant == variant:
                case_id, _, rule = b.by.partition("#")
                audited.setdefault((case_id, rule), set()).add(req.sentence)
    wrong = []
    for case in report["cases"]:
        if case["outcome"] not in ("fail", "warn"):
            continue
        rule = case.get("rule") or ""
        sentences = audited.get((case["id"], rule)) or audited.get((case["id"], ""))
        if sentences and case["spec"]["sentence"] not in sentences:
            wrong.append(
                f"{variant}: {case['id']}{'#' + rule if rule else ''} quotes {case['spec']['sentence']!r}; "
                f"its audit entry: {sorted(sentences)}"
            )
    return wrong


def outcome_diff(expected: dict[str, str], got: dict[str, str]) -> str:
    keys = sorted(set(expected) | set(got))
    rows = [
        f"  {k}: expected {expected.get(k)}, got {got.get(k)}" for k in keys if expected.get(k) != got.get(k)
    ]
    return "outcomes differ:\n" + "\n".join(rows)


@contextmanager
def revision_kept() -> Iterator[None]:
    """A run in this process picks its own spec revision; the tests' process keeps its own (or none)."""
    from conformance.core import revisions

    token = revisions.checking(revisions.checked())
    try:
        yield
    finally:
        revisions.reset(token)


@pytest.fixture(autouse=True)
def no_ambient_revision() -> Iterator[None]:
    """A spec revision a test leaves checked is undone after it: left set, it would be the next
    test's in this xdist worker, which would then pass or fail by the order it ran in."""
    with revision_kept():
        yield


def direct_run(*args: str, cases: list[str] | None = None, report_dir: Path | None = None) -> Run:
    """The cases run in this process on one agent through the engine (conformance.direct drives
    conformance.run, as the plugin does): the same pre-flight, case steps, verdict and exit code
    as a command-line run, without a pytest start per run."""
    from conformance.direct import finished

    with revision_kept():
        ended = finished(list(args), cases, report_dir)
    body = ended.report.to_json()
    json.dumps(body, allow_nan=False)  # whatever a case recorded, the report is JSON
    return Run(ended.exit_code, "", ended.line, body, report_dir)


@pytest.fixture
def direct(tmp_path: Path):
    def run(*args: str, cases: list[str] | None = None) -> Run:
        return direct_run(*args, cases=cases, report_dir=tmp_path / "report")

    return run


def agent_command(name: str, *args: str) -> str:
    """The command of the variant tests/agents/NAME.py, where a NAME without a folder is an ACP
    variant's (tests/agents/acp/NAME.py): "harness/exits_mid_run", "http/…" name their folder."""
    folder = AGENTS if "/" in name else AGENTS / "acp"
    return python_command(str(folder / f"{name}.py"), *args)


LAUNCHER = ROOT / "tests" / "launcher.py"
_FORK_SERVER: list[tuple[subprocess.Popen[bytes], str]] = []


def python_command(*argv: str) -> str:
    """`python ARGV` for a test agent, started by this worker's fork server (tests/launcher.py):
    the same agent, without a second of SDK imports per start. CONFORMANCE_TESTS_NO_FORK=1 runs
    the plain command."""
    if os.environ.get("CONFORMANCE_TESTS_NO_FORK"):
        return shlex.join([sys.executable, *argv])
    return shlex.join([sys.executable, "-I", "-S", str(LAUNCHER), _fork_server(), *argv])


def _fork_server() -> str:
    if not _FORK_SERVER:
        folder = tempfile.mkdtemp(prefix="conformance-fork-")
        path = os.path.join(folder, "server.sock")
        server = subprocess.Popen(
            [sys.executable, str(LAUNCHER), "serve", path],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        _FORK_SERVER.append((server, folder))
        atexit.register(_stop_fork_server)
        # Ready before the first agent starts: its imports must not count against --timeout.
        deadline = time.monotonic() + 120
        while not os.path.exists(path) and server.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert os.path.exists(path), f"the tests' fork server did not start (exit {server.poll()})"
    return os.path.join(_FORK_SERVER[0][1], "server.sock")


def _stop_fork_server() -> None:
    for server, folder in _FORK_SERVER:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=5)
        shutil.rmtree(folder, ignore_errors=True)


def run_suite(report_dir: Path, *args: str, timeout: float = 600) -> Run:
    proc = subprocess.run(
        [*shlex.split(python_command(str(RUNNER))), "--report-dir", str(report_dir), "-q", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
    path = report_dir / "report.json"
    report = json.loads(path.read_text()) if path.exists() else None
    return Run(proc.returncode, proc.stdout, proc.stderr, report, report_dir)


@pytest.fixture
def suite(tmp_path: Path):
    def run(*args: str, timeout: float = 600) -> Run:
        return run_suite(tmp_path / "report", *args, timeout=timeout)

    return run


@contextmanager
def listening(argv: list[str], cwd: Path = ROOT) -> Iterator[str]:
    """A server process that prints its URL on its first line (the reference agent with --listen,
    a reference server with --http, the test services): the URL, while it runs."""
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        line = proc.stdout.readline() if proc.stdout else b""
        found = URL.search(line)
        assert found, f"{argv} printed {line!r}"
        yield found.group(1).decode()
    finally:
        proc.terminate()
        proc.wait(timeout=10)

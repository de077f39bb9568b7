"""`session-status-conformance campaign`: run the chosen target's sequence and fuzz cases for a time
budget on N worker processes that share one example database; watch it; get a report.

Each worker runs rounds: a normal run of one of those cases (its own agent process, the campaign
profile, a fresh seed, --db shared), again and again until the budget is spent. The workers take
the cases in turn, those that find the most first (the model-based sequences, then the fuzzers
of the status request, then those of malformed frames), and a round's slice of time is the
budget shared among the cases (at most --round), so a campaign of any length runs every case. A
round's report gives its findings; its progress file, written as it goes, the examples and model
coverage so far. Ctrl-C (or the end of the budget) interrupts the rounds, which write their partial reports
within a second or two; the campaign then confirms each finding (a sequence's replay file is
replayed: FIXED means flaky; any finding is run once more as a normal run given the same --db,
which replays it first) and writes campaign.json and campaign.html.

Exit codes: 0 no finding, 1 at least one finding reproduced, 2 usage or harness error.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conformance import COMMAND
from conformance.campaign.findings import Finding, Findings
from conformance.campaign.rounds import Round, Worker, read_json
from conformance.core import progress

if TYPE_CHECKING:
    from _pytest.mark.expression import ExpressionMatcher

__all__ = ["campaign_cases", "main", "parse_duration", "read_json"]

USAGE, FOUND, NOTHING = 2, 1, 0
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h)?\s*$")
# What a round says when the shared database is gone: lost mid-round, or unreachable at its start.
_LOST = ("example database at", "cannot reach Redis")
CONFIRM_AT_MOST = 20
# Seconds a round has after its Ctrl-C to write its partial report before it is killed: it takes
# about 1.5 s here, and past 5 s on a machine loaded by other campaigns (a round killed at 5 s left
# no report, so an interrupted campaign could say that no round wrote one).
ROUND_GRACE = 15.0


def parse_duration(text: str) -> float:
    """``90``, ``90s``, ``15m``, ``2h`` -> seconds."""
    match = _DURATION.match(text)
    if not match:
        raise ValueError(f"{text!r} is not a duration such as 90s, 15m or 2h")
    seconds = float(match.group(1)) * {"s": 1, "m": 60, "h": 3600}[match.group(2) or "s"]
    if seconds <= 0:
        raise ValueError(f"{text!r} is not a positive duration")
    return seconds


def campaign_cases(target: str) -> list[str]:
    """The target's Hypothesis-driven cases: its model-based sequences and its fuzzers."""
    import conformance.cases as cases
    from conformance.core.registry import CASES

    cases.load_all()
    return [
        c
        for c, case in CASES.items()
        if case.target == target and ("fuzz" in c.split(".") or "model-based" in c)
    ]


def by_yield(case_ids: list[str]) -> list[str]:
    """The order rounds take the cases in: those that find the most first. Model-based sequences
    find what needs several calls (a ci run finds those in seconds, and so must a short campaign),
    then fuzzers whose findings break a MUST, then the robustness ones (frames the protocol never
    carries), each group in the suite's order."""
    from conformance.core.registry import CASES, Level

    def rank(case_id: str) -> int:
        case = CASES.get(case_id)
        if "model-based" in case_id:
            return 0
        return 2 if case is not None and case.level is Level.ROBUSTNESS else 1

    return sorted(case_ids, key=rank)


# A round's slice of time is never shorter than this (a round also starts an agent and pytest).
MIN_SLICE = 5.0


def round_slice(duration: float, workers: int, cases: int, round_seconds: float) -> float:
    """Seconds of generating a round gives its case: the budget shared among the cases, so that
    every case gets a round within the campaign's duration, and never more than --round."""
    return max(MIN_SLICE, min(round_seconds, duration * workers / max(1, cases)))


class Campaign:
    def __init__(
        self,
        *,
        target: str,
        target_args: list[str],
        cases: list[str],
        duration: float,
        workers: int,
        round_seconds: float,
        db: str,
        folder: Path,
    ) -> None:
        self.target = target
        self.target_args = target_args
        self.cases = cases
        self.duration = duration
        self.round_seconds = round_seconds
        self.db = db
        self.db_given = db
        self.db_lost: str | None = None
        self.folder = folder
        self.local_db = folder / "examples-local"
        self.workers = [Worker(i) for i in range(workers)]
        self.order = by_yield(cases)
        self.taken = 0  # rounds handed out: the next takes self.order[taken % len(order)]
        self.slice = round_slice(duration, workers, len(cases), round_seconds)
        self.case_examples: dict[str, int] = dict.fromkeys(self.order, 0)  # of the finished rounds
        self.findings = Findings()
        self.findings_timeline: list[tuple[float, int]] = [(0.0, 0)]
        self.transitions: dict[str, int] = {}
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.started = time.monotonic()
        self.started_at = datetime.now(UTC)
        self.stopped_by = "budget"
        self.problems: list[str] = []
        self.threads: list[threading.Thread] = []
        self.duration_run: float | None = None  # once the campaign has ended

    # -- rounds ---------------------------------------------------------------------------------

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def round_command(self, seed: int, folder: Path, case: str) -> list[str]:
        return [
            sys.executable,
            "-m",
            "conformance",
            *self.target_args,
            *("-k", case, "--profile", "campaign", "--seed", str(seed)),
            *("--db", self.db, "--report-dir", str(folder), "-q"),
        ]

    def next_case(self) -> str:
        with self.lock:
            case = self.order[self.taken % len(self.order)]
            self.taken += 1
        return case

    def work(self, worker: Worker) -> None:
        rng = random.SystemRandom()
        while not self.stop.is_set():
            remaining = self.duration - self.elapsed()
            if remaining < 1:
                break
            number = len(worker.rounds) + 1
            folder = self.folder / f"worker-{worker.index}" / f"round-{number:03d}"
            folder.mkdir(parents=True, exist_ok=True)
            seed = rng.randrange(2**32)
            case = self.next_case()
            this = Round(worker.index, number, seed, folder, started=self.elapsed(), case=case)
            worker.rounds.append(this)
            env = {
                **os.environ,
                progress.ENV: str(folder / "progress.json"),
                "CONFORMANCE_ROUND_SECONDS": f"{max(3.0, min(self.slice, remaining)):.1f}",
                "CONFORMANCE_DB_LOCAL": str(self.local_db),
            }
            with open(folder / "round.log", "wb") as log:
                process = subprocess.Popen(
                    self.round_command(seed, folder, case),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    env=env,
                    start_new_session=True,  # Ctrl-C reaches the campaign, which passes it on
                )
                self._wait(process)
            this.code, this.ended = process.returncode, self.elapsed()
            self.round_ended(worker, this)

    def _wait(self, process: subprocess.Popen) -> None:
        while process.poll() is None:
            if self.stop.wait(0.2) or self.elapsed() > self.duration:
                self._interrupt(process)
                return

    @staticmethod
    def _interrupt(process: subprocess.Popen) -> None:
        """Ctrl-C for the round (it writes its partial report), then, if it lingers, the kill."""
        for sig, wait in ((signal.SIGINT, ROUND_GRACE), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
            try:
                process.wait(timeout=wait)
                return
            except subprocess.TimeoutExpired:
                continue

    def round_ended(self, worker: Worker, this: Round) -> None:
        data = read_json(this.folder / "progress.json") or {}
        this.examples = sum(data.get("examples", {}).values())
        report = read_json(this.folder / "report.json")
        log = (this.folder / "round.log").read_text(errors="replace")[-20000:]
        with self.lock:
            worker.done_examples += this.examples
            for case, count in data.get("examples", {}).items():
                self.case_examples[case] = self.case_examples.get(case, 0) + count
            for key, count in data.get("transitions", {}).items():
                self.transitions[key] = self.transitions.get(key, 0) + count
            if report is not None:
                new = self.findings.add_report(
                    report, at=this.ended or 0.0, worker=worker.index, path=str(this.folder / "report.json")
                )
                this.findings = len(new)
                if new:
                    self.findings_timeline.append((this.ended or 0.0, len(self.findings)))
            elif this.code not in (0, 1) and not self.stop.is_set():
                last = [line for line in log.splitlines() if line.strip()][-1:] or ["(no output)"]
                self.problems.append(
                    f"worker {worker.index} round {this.number}: exit {this.code}: {last[0][:300]}"
                )
            lost = [x for x in log.splitlines() if any(marker in x for marker in _LOST)]
            if lost and self.db_lost is None and self.db != str(self.local_db):
                self.db_lost = lost[0].removeprefix("warning: ").removeprefix("error: ").strip()[:300]
                self.db = str(self.local_db)  # the rounds to come use the local copy alone
                print(f"warning: {self.db_lost}; the campaign goes on with {self.local_db}", file=sys.stderr)

    # -- watching -------------------------------------------------------------------------------

    def sample(self) -> dict[str, Any]:
        """Examples per worker now, their rates, and the model coverage so far."""
        now = self.elapsed()
        per_worker = []
        transitions = dict(self.transitions)
        per_case = dict(self.case_examples)
        for worker in self.workers:
            total, data = worker.live()
            worker.timeline.append((round(now, 2), total))
            if worker.rounds and worker.rounds[-1].ended is None:
                for key in data.get("transitions", {}):
                    transitions.setdefault(key, 0)
                for case, count in data.get("examples", {}).items():
                    per_case[case] = per_case.get(case, 0) + count
            per_worker.append(total)
        return {
            "elapsed": now,
            "examples": per_worker,
            "cases": per_case,
            "states": progress.states_of(transitions),
            "transitions": transitions,
        }

    def watch(self) -> None:
        """A live line on stderr until the budget is spent or Ctrl-C."""
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        console = Console(stderr=True)
        if not console.is_terminal:  # a CI log: a plain line every 10 seconds, not a redrawn bar
            said = -10.0
            while any(t.is_alive() for t in self.threads):
                snapshot = self.sample()
                if snapshot["elapsed"] - said >= 10:
                    said = snapshot["elapsed"]
                    left = max(0.0, self.duration - said)
                    print(
                        f"campaign {said:.0f} s, {left:.0f} s left: {self.describe(snapshot)}",
                        file=sys.stderr,
                    )
                time.sleep(0.5)
            self.sample()
            return
        columns = (
            TextColumn("campaign"),
            BarColumn(),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
        )
        with Progress(*columns, TextColumn("{task.description}"), console=console, transient=False) as bar:
            task = bar.add_task("starting", total=self.duration)
            while any(t.is_alive() for t in self.threads):
                snapshot = self.sample()
                bar.update(
                    task,
                    completed=min(self.duration, snapshot["elapsed"]),
                    description=self.describe(snapshot),
                )
                time.sleep(0.5)
            snapshot = self.sample()
            bar.update(
                task, completed=min(self.duration, snapshot["elapsed"]), description=self.describe(snapshot)
            )

    def describe(self, snapshot: dict[str, Any]) -> str:
        elapsed = max(snapshot["elapsed"], 1e-6)
        rates = [n / elapsed for n in snapshot["examples"]]
        covered = sum(1 for k in snapshot["transitions"])
        states = sum(1 for k in snapshot["states"])
        cases = snapshot.get("cases") or {}
        return (
            f"{sum(snapshot['examples'])} examples ({sum(rates):.1f}/s: "
            + ", ".join(f"w{i} {r:.1f}" for i, r in enumerate(rates))
            + ") · by case: "
            + ", ".join(f"{case} {cases.get(case, 0)}" for case in self.order)
            + f" · {len(self.findings)} finding(s) · {states} model states, {covered} transitions"
        )

    # -- the whole campaign ---------------------------------------------------------------------

    def run(self) -> int:
        self.threads = [threading.Thread(target=self.work, args=(w,), daemon=True) for w in self.workers]
        for thread in self.threads:
            thread.start()
        try:
            self.watch()
        except KeyboardInterrupt:
            self.stopped_by = "interrupt"
            self.stop.set()
            print("interrupted: stopping the rounds (their partial reports are kept)", file=sys.stderr)
            for thread in self.threads:
                thread.join(timeout=ROUND_GRACE + 10)
        self.stop.set()
        try:
            for thread in self.threads:
                thread.join(timeout=ROUND_GRACE + 10)
        except KeyboardInterrupt:
            # Ctrl-C as the budget ran out: the rounds are stopping already, as they would on it.
            self.stopped_by = "interrupt"
        self.duration_run = self.elapsed()
        self.confirm()
        from conformance.campaign.report import write_reports

        _json_path, html_path = write_reports(self)
        reproduced = [f for f in self.findings if f.confirmed == "reproduced"]
        flaky = [f for f in self.findings if f.confirmed == "flaky"]
        examples = sum(w.done_examples for w in self.workers)
        line = (
            f"campaign {'interrupted' if self.stopped_by == 'interrupt' else 'done'}: {examples} examples in "
            f"{self.duration_run:.0f} s on {len(self.workers)} worker(s); {len(self.findings)} distinct finding(s)"
            f" ({len(reproduced)} reproduced, {len(flaky)} flaky)"
            + (f"; the example database was lost: {self.db_lost}" if self.db_lost else "")
            + f" — report: {html_path}"
        )
        print(line, file=sys.stderr)
        if not any((r.folder / "report.json").is_file() for w in self.workers for r in w.rounds):
            print(
                f"error: no round wrote a report; see {self.folder}/worker-0/round-001/round.log",
                file=sys.stderr,
            )
            return USAGE
        return FOUND if reproduced or [f for f in self.findings if f.confirmed == "unconfirmed"] else NOTHING

    def confirm(self) -> None:
        """Replay each finding: its replay file (FIXED: flaky), else a normal run of its case given
        the same --db (Hypothesis replays the saved failure first)."""
        for n, finding in enumerate(self.findings):
            try:
                self.confirm_one(n, finding)
            except KeyboardInterrupt:
                # Ctrl-C while a replay ran (the budget ended first): the finding stays unconfirmed,
                # the remaining ones are not replayed, and the reports are written all the same.
                self.stopped_by = "interrupt"
                finding.confirmed = "unconfirmed"
                finding.confirmation = "not replayed (the campaign was stopped during its replay)"

    def confirm_one(self, n: int, finding: Finding) -> None:
        """One finding's confirmation: its replay file, else a rerun of its case with the --db."""
        if (self.stopped_by == "interrupt" and n >= 3) or n >= CONFIRM_AT_MOST:
            finding.confirmation = (
                "not replayed (the campaign was stopped)"
                if self.stopped_by == "interrupt"
                else (f"not replayed (only the first {CONFIRM_AT_MOST} findings are)")
            )
            return
        kept = self.folder / "findings"
        kept.mkdir(exist_ok=True)
        if finding.replay_file and Path(finding.replay_file).is_file():
            replay = kept / f"{finding.fingerprint}.replay.json"
            shutil.copyfile(finding.replay_file, replay)
            finding.replay_file = str(replay)
            done = subprocess.run(
                # the campaign's own options (its --env, --secret-env, headers…) over what the
                # file recorded, which leaves secrets out
                [sys.executable, "-m", "conformance", "replay", str(replay), *self.target_args],
                capture_output=True,
                text=True,
                timeout=300,
                stdin=subprocess.DEVNULL,
            )
            said = (done.stdout.strip().splitlines() or done.stderr.strip().splitlines() or [""])[-1][:500]
            finding.confirmed = {0: "flaky", 1: "reproduced"}.get(done.returncode, "unconfirmed")
            finding.confirmation = f"{COMMAND} replay {replay}: {said}"
            return
        folder = kept / f"{finding.fingerprint}-rerun"
        command = [
            sys.executable,
            "-m",
            "conformance",
            *self.target_args,
            *("-k", finding.case_id, "--db", self.db, "--report-dir", str(folder), "-q"),
        ]
        if finding.seed is not None:
            command += ["--profile", "dev", "--seed", str(finding.seed)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
        report = read_json(folder / "report.json") or {}
        again = [c for c in report.get("cases", []) if c.get("id") == finding.case_id]
        outcome = again[0].get("outcome") if again else None
        finding.confirmed = (
            "reproduced" if outcome in ("fail", "warn", "error") else "flaky" if outcome else "unconfirmed"
        )
        finding.confirmation = (
            f"rerun of {finding.case_id} with --db: {outcome or 'no outcome'} (exit {done.returncode})"
        )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{COMMAND} campaign",
        description="Run the target's sequence and fuzz cases for a time budget on N worker processes that share "
        "one example database (a folder, or Redis shared with other machines); every other option is the "
        "normal run's (--agent, --mcp-cmd, --http-url, --transport…).",
        epilog="Exit codes: 0 no finding, 1 a finding reproduced, 2 usage or harness error.",
    )
    p.add_argument("--duration", default="10m", help="time budget: 90s, 15m, 2h (default 10m)")
    p.add_argument(
        "--workers", type=int, default=max(1, (os.cpu_count() or 2)), help="local worker processes"
    )
    p.add_argument(
        "--db",
        help="the shared example database: a folder or redis://host:port/N (default: examples/ in the campaign's folder)",
    )
    p.add_argument("--round", default="60s", help="seconds of generating per case and round (default 60s)")
    p.add_argument("--report-dir", help="the campaign's folder (default reports/campaign-<timestamp>/)")
    p.add_argument(
        "-k", dest="keyword", metavar="EXPR", help="only these of the sequence and fuzz cases (by id)"
    )
    return p


class _CallInKeyword(Exception):
    """-k 'name(k=v)': pytest's -k refuses call parameters, and so does a campaign's."""


def _words_of(case_id: str) -> ExpressionMatcher:
    """A -k matcher for one case id: a word matches when it is part of the id, in any case."""

    def matches(word: str, /, **parameters: object) -> bool:
        if parameters:
            raise _CallInKeyword
        return word.lower() in case_id.lower()

    return matches


class _Refused(Exception):
    """A command line the campaign refuses: ``message`` follows "error: " (None: argparse has
    already said why)."""

    def __init__(self, message: str | None) -> None:
        super().__init__(message)
        self.message = message


def main(argv: list[str]) -> int:
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    try:
        _check_extras()
        duration, round_seconds = _durations(args)
        target = _target_of(rest)
        cases = _selected_cases(target, args.keyword)
        folder, db = _folder_and_database(args, target)
    except _Refused as refused:
        if refused.message is not None:
            print(f"error: {refused.message}", file=sys.stderr)
        return USAGE
    campaign = Campaign(
        target=target,
        target_args=rest,
        cases=cases,
        duration=duration,
        workers=args.workers,
        round_seconds=round_seconds,
        db=db,
        folder=folder,
    )
    print(
        f"campaign: {', '.join(campaign.order)} in turn, {campaign.slice:g} s a round, for {duration:g} s on "
        f"{args.workers} worker(s); example database {db}",
        file=sys.stderr,
    )
    return campaign.run()


def _check_extras() -> None:
    try:
        import matplotlib  # noqa: F401
        import rich  # noqa: F401
    except ImportError as exc:
        raise _Refused(
            f"campaigns need {exc.name}, in the suite's campaign extra: pip install -e '.[campaign]' in "
            "the suite's checkout (or pip install './session-status-conformance[campaign]' beside a clone)"
        ) from None


def _durations(args: argparse.Namespace) -> tuple[float, float]:
    """The campaign's duration and a round's longest slice, in seconds (and --workers checked)."""
    try:
        duration, round_seconds = parse_duration(args.duration), parse_duration(args.round)
    except ValueError as exc:
        raise _Refused(str(exc)) from None
    if args.workers < 1:
        raise _Refused("--workers must be at least 1")
    return duration, round_seconds


def _target_of(rest: list[str]) -> str:
    """The target the run options choose (the words the campaign's own parser left); the options
    that choose what a round runs are the campaign's."""
    from conformance.core.options import add_arguments
    from conformance.targets import TARGETS, chosen

    for word in ("-m", "--profile", "--seed", "--report-dir", "-n"):
        if word in rest:
            raise _Refused(f"{word} is the campaign's to choose; it runs every sequence and fuzz case")
    run_parser = argparse.ArgumentParser(prog=f"{COMMAND} campaign", add_help=False)
    add_arguments(run_parser, TARGETS)
    try:
        values = vars(run_parser.parse_args(rest))
    except SystemExit:
        raise _Refused(None) from None
    return chosen(values).name


def _selected_cases(target: str, keyword: str | None) -> list[str]:
    """The target's sequence and fuzz cases that -k selects (all without it)."""
    cases = campaign_cases(target)
    if not cases:
        raise _Refused(f"the {target} target has no sequence or fuzz cases to run a campaign on")
    if not keyword:
        return cases
    from _pytest.mark.expression import Expression

    try:
        expression = Expression.compile(keyword)
    except SyntaxError as exc:
        raise _Refused(f"-k {keyword!r}: {exc}") from None
    try:
        cases = [c for c in cases if expression.evaluate(_words_of(c))]
    except _CallInKeyword:
        raise _Refused(f"-k {keyword!r}: keyword expressions take no call parameters, as in pytest") from None
    if not cases:
        raise _Refused(f"-k {keyword!r} selects none of {', '.join(campaign_cases(target))}")
    return cases


def _folder_and_database(args: argparse.Namespace, target: str) -> tuple[Path, str]:
    """The campaign's folder, made, and its example database, opened once: an unreachable Redis
    ends the campaign before any round starts."""
    from conformance.core.config import UsageError
    from conformance.core.examples_db import open_database

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    folder = Path(args.report_dir or Path("reports") / f"campaign-{target}-{stamp}").absolute()
    folder.mkdir(parents=True, exist_ok=True)
    db = args.db or str(folder / "examples")
    try:
        open_database(db, local=folder / "examples-local")
    except UsageError as exc:
        raise _Refused(str(exc)) from None
    return folder, db

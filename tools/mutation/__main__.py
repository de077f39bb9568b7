"""`python -m tools.mutation CAMPAIGN [--workers N] [--sample N]`: one campaign (acp, mcp, http, and
acp-features, mcp-features, http-features: the references' machinery mutated and switched on).

Cosmic Ray does the mutating and the bookkeeping (a session database); this runs its commands in
order, shows progress, then scores the session against the triage file and writes the report
(reports/mutation/CAMPAIGN.md). Exit 0 when every survivor is triaged and no mutant triaged as
caught survived, 1 otherwise, 2 for a usage or triage-file error.

The campaign runs on Cosmic Ray's HTTP distributor: --workers N (default 1) `cosmic-ray
http-worker` processes, each in its own copy of the checkout (mutants are written to disk, never
into this checkout), on 127.0.0.1. Workers on other machines are started the same way there (`cosmic-ray http-worker
--port P` in a checkout with the `mutation` extra) and named with --worker-url.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from tools.mutation.kill import BASELINE
from tools.mutation.results import Mutant, TriageError, fate_of, load_triage, markdown, mutant_id, score
from tools.mutation.targets import CAMPAIGNS, ROOT

REPORTS = ROOT / "reports" / "mutation"


# Cosmic Ray runs the test command through the shell: `python` must be this environment's.
ENV = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}


def cosmic(*args: str, **kwargs) -> subprocess.CompletedProcess:
    program = Path(sys.executable).with_name("cosmic-ray")
    return subprocess.run([str(program), *args], check=True, cwd=ROOT, env=ENV, **kwargs)


def baseline(target: str) -> str | None:
    """The unmutated reference must be certified, or every mutant would count as killed. Its
    outcomes are recorded for the workers (MUTATION_BASELINE): a survivor's output then names
    every case whose outcome moved."""
    REPORTS.mkdir(parents=True, exist_ok=True)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.mutation.kill",
            target,
            "--record",
            str(REPORTS / f"{target}-baseline.json"),
        ],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
    )
    return None if run.returncode == 0 else (run.stdout + run.stderr).strip()[-2000:]


def run_filter(module: str, *args: str) -> None:
    """A filter on Cosmic Ray's FilterApp (its own, or this project's) over the session."""
    subprocess.run([sys.executable, "-m", module, *args], check=True, cwd=ROOT)


def spec_id(spec: Any) -> str:
    return mutant_id(str(spec.module_path), tuple(spec.start_pos), spec.operator_name, spec.occurrence)


def mutants_of(session: Path) -> list[Mutant]:
    from cosmic_ray.work_db import WorkDB, use_db

    found = []
    with use_db(str(session), WorkDB.Mode.open) as db:
        results = {job: result for job, result in db.results}
        for item in db.work_items:
            (spec,) = item.mutations
            result = results.get(item.job_id)  # pyright: ignore[reportArgumentType]  # cosmic-ray's WorkDB.results is unannotated: pyright reads its job ids as SQLAlchemy's Column[str]
            found.append(
                Mutant(
                    spec_id(spec),
                    str(spec.module_path),
                    spec.start_pos[0],
                    spec.operator_name,
                    fate_of(
                        result.worker_outcome.value if result else None,
                        result.test_outcome.value if result and result.test_outcome else None,
                        result.output if result else None,
                    ),
                    (result.diff or "") if result else "",
                    (result.output or "") if result else "",
                )
            )
    return sorted(found, key=lambda m: m.id)


def keep_sample(session: Path, size: int) -> int:
    """Skip all but a fixed, evenly spread sample (by mutant id): the same mutants every time."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    with use_db(str(session), WorkDB.Mode.open) as db:
        pending = sorted((spec_id(s), item.job_id) for item in db.pending_work_items for s in item.mutations)
        if size >= len(pending):
            return len(pending)
        stride = len(pending) / size
        chosen = {pending[int(i * stride)][1] for i in range(size)}
        others = [job for _, job in pending if job not in chosen]
        db.set_multiple_results(others, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
    return size


def progress(session: Path, total: int, stop: threading.Event) -> None:
    from cosmic_ray.work_db import WorkDB, use_db

    started = time.monotonic()
    while not stop.wait(10):
        with use_db(str(session), WorkDB.Mode.open) as db:
            done = sum(1 for _, r in db.results if r.worker_outcome.value != "skipped")
        print(
            f"  {done}/{total} mutants run, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True
        )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_workers(count: int, target: str, stack: ExitStack) -> list[str]:
    """Local HTTP workers, each in its own copy of the checkout."""
    urls = []
    for _ in range(count):
        copy = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mutation-worker-"))) / "checkout"
        shutil.copytree(
            ROOT,
            copy,
            ignore=shutil.ignore_patterns(
                ".git",
                ".venv",
                "reports",
                "__pycache__",
                "node_modules",
                ".hypothesis",
                ".acp-reference-sessions",
            ),
        )
        port = free_port()
        worker = subprocess.Popen(
            [str(Path(sys.executable).with_name("cosmic-ray")), "http-worker", "--port", str(port)],
            cwd=copy,
            env=ENV | {BASELINE: str(REPORTS / f"{target}-baseline.json")},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        stack.callback(worker.wait, 10)
        stack.callback(worker.terminate)
        urls.append(f"http://127.0.0.1:{port}")
    for url in urls:  # listening before the coordinator sends work
        port = int(url.rsplit(":", 1)[1])
        for _ in range(200):
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
    return urls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.mutation", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("target", metavar="campaign", choices=sorted(CAMPAIGNS))
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="local HTTP workers, each in a copy of the checkout (default 1)",
    )
    parser.add_argument("--worker-url", action="append", default=[], help="a running worker elsewhere")
    parser.add_argument("--sample", type=int, help="run only this many mutants, a fixed spread of them")
    parser.add_argument(
        "--session", type=Path, help="the Cosmic Ray session (default reports/mutation/CAMPAIGN.sqlite)"
    )
    parser.add_argument(
        "--rescore",
        action="store_true",
        help="run nothing: score the last campaign's session against the triage file as it is now",
    )
    parser.add_argument(
        "--recheck",
        action="store_true",
        help="with --rescore: judge again each survivor triaged as caught (the case added since)",
    )
    args = parser.parse_args(argv)

    import conformance.cases as cases
    from cosmic_ray.work_db import use_db

    from conformance.core.registry import CASES

    cases.load_all()
    campaign = CAMPAIGNS[args.target]
    try:
        triage = load_triage(campaign.triage, set(CASES))
    except TriageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    session = args.session or REPORTS / f"{args.target}.sqlite"
    if args.rescore:
        if not session.exists():
            print(f"error: no campaign session at {session} to rescore", file=sys.stderr)
            return 2
        measured = (
            json.loads(measured_path(args.target).read_text()) if measured_path(args.target).exists() else {}
        )
        return report(args.target, session, triage, measured, recheck=args.recheck)
    failed = baseline(args.target)
    if failed is not None:
        print(
            f"error: the unmutated {args.target} reference is not certified, so no mutant can be judged: {failed}",
            file=sys.stderr,
        )
        return 2
    REPORTS.mkdir(parents=True, exist_ok=True)
    session.unlink(missing_ok=True)
    config = tomllib.loads(campaign.config.read_text())
    started = time.monotonic()
    with ExitStack() as stack:
        # Always on HTTP workers, each in a copy of the checkout: Cosmic Ray's local distributor
        # would write each mutant into this checkout, where the project's own tests and commits
        # could meet it. With --worker-url alone, no local worker starts unless --workers says so.
        urls = list(args.worker_url)
        urls += start_workers(args.workers if args.workers > 1 or not urls else 0, args.target, stack)
        config_path = Path(stack.enter_context(tempfile.TemporaryDirectory())) / f"{args.target}.toml"
        text = campaign.config.read_text().replace('name = "local"', 'name = "http"')
        config_path.write_text(text + f"\n[cosmic-ray.distributor.http]\nworker-urls = {urls!r}\n")
        cosmic("init", str(config_path), str(session))
        run_filter("cosmic_ray.tools.filters.pragma_no_mutate", str(session))
        filters = config.get("cosmic-ray", {}).get("filters", {})
        if "operators-filter" in filters:
            run_filter("cosmic_ray.tools.filters.operators_filter", str(session), str(config_path))
        # Annotations are never evaluated in the references (postponed): mutating them is equivalent.
        run_filter("tools.mutation.annotations_filter", str(session))
        if "definitions-filter" in filters:
            run_filter("tools.mutation.definitions_filter", str(session), str(config_path))
        if "machinery-filter" in filters:
            run_filter("tools.mutation.machinery_filter", str(session), str(config_path))
        with use_db(str(session)) as db:
            total = len(db.pending_work_items)
        if args.sample:
            total = keep_sample(session, args.sample)
        print(f"{args.target}: {total} mutants to run on {max(1, len(urls))} worker(s)", file=sys.stderr)
        stop = threading.Event()
        watcher = threading.Thread(target=progress, args=(session, total, stop), daemon=True)
        watcher.start()
        try:
            cosmic("exec", str(config_path), str(session))
        finally:
            stop.set()
    elapsed = time.monotonic() - started
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    measured = {
        "date": datetime.date.today().isoformat(),
        "commit": commit.strip() or "?",
        "sample": args.sample,
        "seconds": round(elapsed),
        "workers": max(1, len(urls)),
    }
    measured_path(args.target).write_text(json.dumps(measured))
    return report(args.target, session, triage, measured)


def measured_path(target: str) -> Path:
    return REPORTS / f"{target}-measured.json"


def report(target: str, session: Path, triage: dict, measured: dict[str, Any], recheck: bool = False) -> int:
    """Score the session against the triage, write reports/mutation/CAMPAIGN.md, say the score.
    With ``recheck``, each survivor triaged as caught is judged again on a mutated copy (the
    CI sample's way): the case added since the campaign must kill it."""
    mutants = [m for m in mutants_of(session) if m.fate != "skipped"]
    if recheck:
        from tools.mutation.sample import Sampled, fate

        rechecked = 0
        for n, m in enumerate(mutants):
            verdict = triage.get(m.id)
            if m.fate == "survived" and verdict is not None and verdict.kind == "caught":
                now = fate(Sampled(m.id, target, "caught"), say=lambda line: None)
                print(f"  recheck {m.id}: {now}", file=sys.stderr, flush=True)
                if now == "killed":
                    mutants[n] = replace(
                        m, fate="killed", output=m.output + "\nkilled when judged again after triage"
                    )
                    rechecked += 1
        measured = measured | {"rechecked": rechecked}
    path = REPORTS / f"{target}.md"
    path.write_text(markdown(target, mutants, triage, measured))
    result = score(mutants, triage)
    value = "n/a" if result.value is None else f"{result.value:.1%}"
    print(
        f"{target}: score {value} (killed {result.counts['killed']}, survived {result.counts['survived']}, "
        f"timed out {result.counts['timeout']}, not scored (equivalent, conforming, robustness) "
        f"{result.unscored}) in {measured.get('seconds', '?')} s on {measured.get('workers', '?')} worker(s); "
        f"{len(result.gaps)} untriaged, {len(result.broken_promises)} caught but survived — report: {path}",
        file=sys.stderr,
    )
    return 1 if result.gaps or result.broken_promises else 0


if __name__ == "__main__":
    sys.exit(main())

"""CPU seconds per test, every process it started included: what the project's tests cost the
machine, where wall time hides it (a test that waits on its agents shows long and costs little;
six workers on two cores make every wall time longer).

    .venv/bin/python -m pytest -n auto -p tools.cputime      # writes build/cputime/<worker>.jsonl
    .venv/bin/python -m tools.cputime [--top N]               # the summary: by tier, by test function

Each xdist worker moves itself into a cgroup-v1 ``cpuacct`` group of its own
(/sys/fs/cgroup/cpuacct/conformance-tests-<checkout>-<worker>), so every process it starts afterwards (agents,
the fork server, the suite's own command line) is counted, and reads the group's usage around
each test. It needs write access there (root in a container, as CI's machine is); without it the
plugin says so once and measures nothing.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
import zlib
from collections.abc import Generator
from pathlib import Path
from typing import Any, TextIO

import pytest

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "cputime"
CGROUPS = Path("/sys/fs/cgroup/cpuacct")


class _Meter:
    group: Path | None = None
    out: TextIO | None = None


def _usage_ns(group: Path) -> int:
    return int((group / "cpuacct.usage").read_text())


def pytest_configure(config: pytest.Config) -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    # Named by the checkout too: two checkouts measured at once on one machine keep their own groups.
    checkout = f"{zlib.crc32(str(ROOT).encode()):08x}"
    group = CGROUPS / f"conformance-tests-{checkout}-{worker}"
    try:
        group.mkdir(exist_ok=True)
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError as exc:
        print(f"tools.cputime: cannot measure CPU per test here ({exc})", file=sys.stderr)
        return
    OUT.mkdir(parents=True, exist_ok=True)
    _Meter.group = group
    _Meter.out = (OUT / f"{worker}.jsonl").open("a")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, None]:
    group, out = _Meter.group, _Meter.out
    if group is None or out is None:
        yield
        return
    cpu, wall = _usage_ns(group), time.monotonic()
    yield
    line = {"id": item.nodeid, "cpu": (_usage_ns(group) - cpu) / 1e9, "wall": time.monotonic() - wall}
    out.write(json.dumps(line) + "\n")
    out.flush()


def summary(rows: list[dict[str, Any]], top: int) -> str:
    total = sum(r["cpu"] for r in rows)
    lines = [
        f"{len(rows)} tests, {total:.0f} CPU seconds (on 2 cores at best {total / 2:.0f} s of wall time)"
    ]
    tiers: dict[str, float] = collections.defaultdict(float)
    functions: dict[str, float] = collections.defaultdict(float)
    counts: collections.Counter[str] = collections.Counter()
    for r in rows:
        parts = r["id"].split("::")[0].split("/")
        tiers["/".join(parts[:3] if parts[1:2] == ["targets"] else parts[:2])] += r["cpu"]
        function = r["id"].split("[")[0]
        functions[function] += r["cpu"]
        counts[function] += 1
    lines.append("by tier:")
    lines += [f"  {cpu:7.1f}  {tier}" for tier, cpu in sorted(tiers.items(), key=lambda t: -t[1])]
    lines.append(f"the {top} test functions that cost most (CPU s, runs, s per run):")
    for function, cpu in sorted(functions.items(), key=lambda t: -t[1])[:top]:
        lines.append(f"  {cpu:7.1f} {counts[function]:4d} {cpu / counts[function]:6.2f}  {function}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.cputime", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args(argv)
    rows = [
        json.loads(line) for path in sorted(OUT.glob("*.jsonl")) for line in path.read_text().splitlines()
    ]
    if not rows:
        print(f"no measurements in {OUT}: run the tests with -p tools.cputime first", file=sys.stderr)
        return 2
    print(summary(rows, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Campaign throughput at 2 workers ÷ 1 worker: how well a campaign uses a second core.

Runs the same campaign twice against the embedded reference ACP agent (no --agent), one after
the other, each with its own example database:

    python -m conformance campaign -k model-based --duration 30s --round 10s --workers 1 --report-dir DIR1
    python -m conformance campaign -k model-based --duration 30s --round 10s --workers 2 --report-dir DIR2

and reads ``examples`` and ``duration`` from each DIR/campaign.json. Goal: the ratio of their
examples per second ≥ 1.6 on a 2-core machine. Each worker runs rounds, and a round is a process
(pytest, the agent, the handshake) before it generates, so short rounds measure start-up more
than generating; other load on the machine distorts the ratio most of all (a second worker
then competes for a core that is not free). Nothing is asserted; the figures are printed.

    python bench/campaign_scaling.py --duration 30 --round 10
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from _shared import campaign_report, log_tail, table


def run_campaign(workers: int, duration: float, round_seconds: float, keyword: str, folder: Path) -> dict:
    """One campaign; its campaign.json (exits with 0 or 1 are both complete runs)."""
    words = ["-k", keyword, "--duration", f"{duration:g}s", "--round", f"{round_seconds:g}s"]
    code, data, log = campaign_report(
        folder, f"workers-{workers}", [*words, "--workers", str(workers)], seconds=duration, wind_down=180
    )
    if data is None:
        raise RuntimeError(
            f"the {workers}-worker campaign wrote no campaign.json (exit {code}):\n{log_tail(log)}"
        )
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=30.0, help="seconds per campaign (default 30)")
    parser.add_argument(
        "--round", type=float, default=10.0, help="seconds of generating per round (default 10)"
    )
    parser.add_argument(
        "-k", dest="keyword", default="model-based", help="cases, as for campaign -k (default model-based)"
    )
    args = parser.parse_args()
    if args.duration <= 0 or args.round <= 0:
        parser.error("--duration and --round must be positive")

    load_before = os.getloadavg()  # other load on the machine, before the campaigns add theirs
    rates: dict[int, float] = {}
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-campaign-") as tmp:
        try:
            for workers in (1, 2):
                data = run_campaign(workers, args.duration, args.round, args.keyword, Path(tmp))
                examples, duration = int(data["examples"]), float(data["duration"])
                rates[workers] = examples / duration if duration else 0.0
                rounds = sum(len(w["rounds"]) for w in data["workers"])
                per_worker = " ".join(str(w["examples"]) for w in data["workers"])
                rows.append(
                    [workers, examples, per_worker, rounds, f"{duration:.1f}", f"{rates[workers]:.1f}"]
                )
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130
        except RuntimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2

    print(
        f"campaign -k {args.keyword}, reference ACP agent, {args.duration:g} s, rounds of {args.round:g} s, "
        f"{os.cpu_count()} CPU(s), load average before {' '.join(f'{x:.2f}' for x in load_before)}"
    )
    print(table(["workers", "examples", "per worker", "rounds", "duration s", "examples/s"], rows))
    ratio = rates[2] / rates[1] if rates[1] else float("nan")
    print(f"ratio 2 workers / 1 worker: {ratio:.2f} (goal >= 1.6)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

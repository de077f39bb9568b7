"""Time to first finding for the sequence-only broken agents: ci runs over seeds vs a campaign.

The variants (tests/agents/acp/*.py) each break the session model in a way only a sequence of calls
shows. For each one:

- ci: ``python -m conformance --agent "<python> tests/agents/acp/<name>.py" -k model-based
  --profile ci --seed S`` for --seeds seeds (0, 1, …). The ci profile pins seed 0, but an explicit
  --seed overrides it (``run_sequences`` uses the profile's seed only when none is given), so this
  is the ci profile's budget (150 examples × 40 steps, 20 s, restarts capped) at other seeds. The
  time is the case's ``duration`` in report.json (the case alone: no interpreter, pytest or agent
  start); median and worst over the seeds that found it, and how many found it;
- campaign: ``python -m conformance campaign -k model-based --duration 60s --workers 1 --agent …``
  and its campaign.json ``findings[].first_seen``: seconds into the campaign when the round
  that found it ended (rounds are processes, so this includes their start-up), or "not found".

No goal figure: the table shows which bugs the ci budget finds reliably and which need a
campaign. Nothing is asserted.

    python bench/time_to_first_finding.py --seeds 3 --campaign-seconds 30 --variants third_status_loads
"""

from __future__ import annotations

import argparse
import math
import shlex
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from _shared import PYTHON, REPO_ROOT, campaign_report, log_tail, read_json, run_child, table

VARIANTS = (
    "third_status_loads",
    "status_duplicates_after_resume",
    "status_evicts_after_cancel",
    "status_meta_attaches",
    "rare_meta_attaches",
)
FOUND = ("fail", "warn")  # a finding the case reports; "error" is the harness's or a crash
CASE_ID = "sequence.status.model-based"
CI_RUN_TIMEOUT = 300.0  # the ci profile's 20 s budget, plus shrinking and start-up, generously


def agent_command(variant: str) -> str:
    return shlex.join([PYTHON, str(REPO_ROOT / "tests" / "agents" / "acp" / f"{variant}.py")])


def ci_seconds(variant: str, seed: int, folder: Path) -> tuple[float | None, str]:
    """The case's duration if the ci run with this seed found the bug (else None), and its outcome."""
    report_dir = folder / f"{variant}-ci-seed-{seed}"
    command = [
        PYTHON,
        *("-m", "conformance", "--agent", agent_command(variant), "-k", "model-based"),
        *("--profile", "ci", "--seed", str(seed), "--report-dir", str(report_dir), "-q"),
    ]
    log = folder / f"{variant}-ci-seed-{seed}.log"
    code = run_child(command, log=log, timeout=CI_RUN_TIMEOUT)
    report = read_json(report_dir / "report.json") or {}
    cases = [c for c in report.get("cases", []) if c.get("id") == CASE_ID]
    if not cases:
        print(f"warning: {variant} seed {seed}: no result (exit {code}):\n{log_tail(log)}", file=sys.stderr)
        return None, "no result"
    outcome = str(cases[0].get("outcome"))
    return (float(cases[0]["duration"]) if outcome in FOUND else None), outcome


def campaign_first_seen(variant: str, seconds: float, folder: Path) -> tuple[float | None, int]:
    """When the campaign first saw a finding of the sequence case (None: it did not), and how many
    examples it ran."""
    words = [
        "-k",
        "model-based",
        "--duration",
        f"{seconds:g}s",
        "--workers",
        "1",
        "--agent",
        agent_command(variant),
    ]
    code, data, log = campaign_report(folder, f"{variant}-campaign", words, seconds=seconds, wind_down=240)
    if data is None:
        print(
            f"warning: {variant} campaign wrote no campaign.json (exit {code}):\n{log_tail(log)}",
            file=sys.stderr,
        )
        return None, 0
    seen = [f["first_seen"] for f in data.get("findings", []) if f.get("case_id", CASE_ID) == CASE_ID]
    return (min(seen) if seen else None), int(data.get("examples") or 0)


def over_seeds(found: list[float], missed: int, summary: Callable[[list[float]], float]) -> str:
    """``summary`` (median, max) over every seed, a seed that missed counting as slower than any
    that found: "not found" when that is where the summary lands."""
    times = sorted(found) + [math.inf] * missed
    if not times:
        return "-"
    value = summary(times)
    return "not found" if math.isinf(value) else f"{value:.1f}"


def campaign_cell(first_seen: float | None, *, ran: bool) -> str:
    if not ran:
        return "skipped"
    return "not found" if first_seen is None else f"{first_seen:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seeds", type=int, default=10, help="ci runs per variant, seeds 0..N-1 (default 10)"
    )
    parser.add_argument(
        "--campaign-seconds",
        type=float,
        default=60.0,
        help="campaign duration per variant; 0 skips it (default 60)",
    )
    parser.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help=f"comma-separated, of: {', '.join(VARIANTS)} (default all)",
    )
    args = parser.parse_args()
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = set(variants) - set(VARIANTS)
    if not variants or unknown:
        parser.error(
            f"--variants: unknown {', '.join(sorted(unknown)) or '(none given)'}; one of {', '.join(VARIANTS)}"
        )
    if args.seeds < 0 or args.campaign_seconds < 0:
        parser.error("--seeds and --campaign-seconds must not be negative")

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-ttff-") as tmp:
        folder = Path(tmp)
        try:
            for variant in variants:
                found: list[float] = []
                missed: list[str] = []
                for seed in range(args.seeds):
                    seconds, outcome = ci_seconds(variant, seed, folder)
                    if seconds is None:
                        missed.append(f"{seed}:{outcome}")
                    else:
                        found.append(seconds)
                    print(
                        f"{variant} seed {seed}: {outcome}"
                        + (f" in {seconds:.1f} s" if seconds is not None else ""),
                        file=sys.stderr,
                    )
                first_seen, examples = (
                    campaign_first_seen(variant, args.campaign_seconds, folder)
                    if args.campaign_seconds
                    else (None, 0)
                )
                rows.append(
                    [
                        variant,
                        f"{len(found)}/{args.seeds}",
                        over_seeds(found, len(missed), statistics.median),
                        over_seeds(found, len(missed), max),
                        " ".join(missed) or "-",
                        campaign_cell(first_seen, ran=bool(args.campaign_seconds)),
                        examples if args.campaign_seconds else "-",
                    ]
                )
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130

    print(
        f"time to first finding of {CASE_ID}: ci profile over seeds 0..{args.seeds - 1} (case duration, s) "
        f"vs a {args.campaign_seconds:g} s campaign on 1 worker (first_seen, s)"
    )
    print(
        table(
            [
                "variant",
                "ci found",
                "ci median s",
                "ci worst s",
                "ci missed (seed:outcome)",
                "campaign first_seen s",
                "campaign examples",
            ],
            rows,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Cosmic Ray's test command: `python -m tools.mutation.kill CAMPAIGN`, run in the checkout that
holds the mutant. Exit 0 when every suite run certifies the mutated reference (the mutant survived),
1 when one does not (non-conformant, an error, or not implemented: the suite noticed). Each run
gets a fresh temporary directory; the seed and the ci profile are fixed, so a mutant's fate does
not depend on chance.

Each suite run is split in two, and each part stops at its first failing case (pytest's -x): the
deterministic cases of every run first, then the Hypothesis-driven ones (sequences, fuzzers), which
take most of a run's time. One failure is enough to kill; a survivor still runs every case.

What a surviving mutant's runs did notice below the certificate (a broken SHOULD, a robustness
finding, a MAY path) is printed, so the triage starts from it; Cosmic Ray keeps the output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.mutation.targets import CAMPAIGNS

DRAWN = "model or fuzz"  # the Hypothesis-driven cases, by -k on their ids (…model-based, fuzz.…)


def drawn_cases(target: str) -> bool:
    import conformance.cases as cases

    from conformance.core.registry import CASES

    cases.load_all()
    return any("model" in c.id or "fuzz" in c.id for c in CASES.values() if c.target == target)


def read(report: Path) -> dict:
    try:
        return json.loads(report.read_text())
    except (OSError, ValueError):
        return {}


# The unmutated reference's outcomes, per run (a file the campaign writes before its workers start):
# with it, a survivor's output names every case whose outcome moved, n/a included.
BASELINE = "MUTATION_BASELINE"


def noticed(report: dict, baseline: dict[str, str] | None = None) -> list[str]:
    """In a certified run, the cases that did not pass (a robustness or SHOULD finding, a MAY path,
    a case the run could not test): `outcome level id`; given the unmutated reference's outcomes,
    the cases whose outcome differs from it: `outcome level id (reference: outcome)`."""
    if baseline is not None:
        return [
            f"{case['outcome']} {case.get('level', '?')} {case['id']} (reference: {baseline.get(case['id'], '?')})"
            for case in report.get("cases", [])
            if baseline.get(case["id"]) != case.get("outcome")
        ]
    return [
        f"{case['outcome']} {case.get('level', '?')} {case['id']}"
        for case in report.get("cases", [])
        if case.get("outcome") not in ("pass", "n/a")
    ]


def failures(report: dict) -> list[str]:
    """The cases that failed or crashed in a run, each with the start of its message."""
    return [
        f"{case['outcome']} {case['id']}: {str(case.get('message', ''))[:160]}"
        for case in report.get("cases", [])
        if case.get("outcome") in ("fail", "error")
    ]


def outcomes(report: dict) -> dict[str, str]:
    return {case["id"]: case.get("outcome", "?") for case in report.get("cases", [])}


def suite(python: str, args: list[str], *pytest_args: str) -> tuple[subprocess.CompletedProcess, dict]:
    with tempfile.TemporaryDirectory(prefix="mutant-") as folder:
        report = Path(folder) / "report"
        run = subprocess.run(
            [python, "-m", "conformance", *args, "--report-dir", str(report), "--", *pytest_args],
            cwd=folder,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},  # a mutant's bytecode must not outlive it
            capture_output=True,
            text=True,
        )
        return run, read(report / "report.json")


def judge(name: str, root: Path, say=print, record: Path | None = None) -> int:
    """Run campaign ``name``'s suite runs against the reference in checkout ``root``: 1 when a run
    notices (killed), 0 when every run certifies it (survived). ``say`` gets the verdict lines.
    ``record`` (for the unmutated reference) is where each run's outcomes are written, for the
    mutants' runs to be compared with (MUTATION_BASELINE)."""
    campaign = CAMPAIGNS[name]
    python = sys.executable
    parts = ["not (" + DRAWN + ")", DRAWN] if drawn_cases(campaign.target) else [None]
    reference = json.loads(Path(os.environ[BASELINE]).read_text()) if os.environ.get(BASELINE) else None
    recorded: dict[str, dict[str, str]] = {}
    # Every run's deterministic part first, then the drawn parts: most mutants die in seconds.
    for part in parts:
        for number, words in enumerate(campaign.runs):
            args = [w.replace("{python}", python).replace("{root}", str(root)) for w in words]
            selection = ["-k", part] if part else []
            run, report = suite(python, [*args, *selection], "-x")
            if run.returncode == 0 and (report.get("selection") or {}).get("stopped"):
                # -x stopped at a failure that does not decide the certificate (a robustness
                # finding): the cases after it have not run yet.
                run, report = suite(python, [*args, *selection])
            verdict = run.stderr.strip().splitlines()[-1:] or ["(no verdict line)"]
            # The report goes with the folder: the verdict line without its path.
            say(f"exit {run.returncode}: {verdict[0].split(' — report: ')[0]}")
            if run.returncode != 0:
                if record is not None:
                    # The unmutated reference failed: which cases and why, or a flaky baseline
                    # could not be told from a broken one.
                    for line in failures(report) or [run.stderr.strip()[-300:]]:
                        say(f"  {line}")
                return 1
            key = f"{number}:{part}"
            recorded[key] = outcomes(report)
            for line in noticed(report, None if reference is None else reference.get(key, {})):
                say(f"  {line}")
    if record is not None:
        record.write_text(json.dumps(recorded, indent=1))
    return 0


def main(argv: list[str]) -> int:
    record = Path(argv[2]) if argv[1:2] == ["--record"] else None
    return judge(argv[0], Path.cwd(), record=record)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

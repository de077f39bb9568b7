"""Cosmic Ray's test command: `python -m tools.mutation.kill TARGET`, run in the checkout that holds
the mutant. Exit 0 when every suite run certifies the mutated reference (the mutant survived),
1 when one does not (non-conformant, an error, or not implemented: the suite noticed). Each run
gets a fresh temporary directory; the seed and the ci profile are fixed, so a mutant's fate does
not depend on chance."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.mutation.targets import CAMPAIGNS


def main(argv: list[str]) -> int:
    campaign = CAMPAIGNS[argv[0]]
    root = Path.cwd()
    python = sys.executable
    for words in campaign.runs:
        args = [w.replace("{python}", python).replace("{root}", str(root)) for w in words]
        with tempfile.TemporaryDirectory(prefix="mutant-") as folder:
            run = subprocess.run(
                [python, "-m", "conformance", *args, "--report-dir", str(Path(folder) / "report")],
                cwd=folder,
                env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},  # a mutant's bytecode must not outlive it
                capture_output=True,
                text=True,
            )
        verdict = run.stderr.strip().splitlines()[-1:] or ["(no verdict line)"]
        print(
            f"exit {run.returncode}: {verdict[0].split(' — report: ')[0]}"
        )  # the report is gone with the folder
        if run.returncode != 0:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

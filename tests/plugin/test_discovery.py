"""One target distribution that does not load (its module gone, its metadata left installed)
stops only the runs that ask for it: the others certify as before, with one line naming it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conformance import targets
from conformance.core.traceability import CASES_GROUP
from tests.conftest import ROOT


def test_a_broken_distribution_stops_only_the_runs_that_ask_for_it(tmp_path: Path) -> None:
    """A distribution whose package fails to import (a dependency gone), registering a target and
    its cases: an MCP run certifies as before, with one line naming each entry left out;
    --target naming it is a usage error."""
    site = tmp_path / "site"
    (site / "broken_target").mkdir(parents=True)
    (site / "broken_target" / "__init__.py").write_text('raise ImportError("needs a_gone_dependency")\n')
    info = site / "broken_target-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-target\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[{targets.GROUP}]\nbroken = broken_target.declaration:Broken\n\n[{CASES_GROUP}]\nbroken = broken_target.cases\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    server = f"{sys.executable} {ROOT / 'conformance' / 'reference' / 'mcp' / 'server.py'}"
    case = "heartbeat.args.valid-call-succeeds"
    run = [sys.executable, "-m", "conformance", "--report-dir", str(tmp_path / "r"), "-q"]
    done = subprocess.run(
        [*run, "--mcp-cmd", server, "-k", case],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    named = [line for line in done.stderr.splitlines() if "broken_target" in line]
    assert named == [
        f"warning: the target 'broken' is left out ({targets.GROUP}: broken = "
        "broken_target.declaration:Broken from broken-target 1.0: ImportError: needs a_gone_dependency)",
        f"warning: the cases package 'broken_target.cases' is left out ({CASES_GROUP}: "
        "ImportError('needs a_gone_dependency'))",
    ], done.stderr[-3000:]
    asked = subprocess.run(
        [*run, "--target", "broken"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert asked.returncode == 2
    assert asked.stderr.splitlines()[-1].startswith("error: argument --target: invalid choice: 'broken'"), (
        asked.stderr
    )

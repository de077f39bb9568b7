"""One target distribution that does not load (its module gone, its metadata left installed)
stops only the runs that ask for it: the others certify as before, with one line naming it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conformance import targets
from tests.conftest import ROOT


def test_a_broken_distribution_stops_only_the_runs_that_ask_for_it(tmp_path: Path) -> None:
    """Installed metadata whose target module is gone: an MCP run certifies as before, with one
    line naming the broken target; --target naming it is a usage error."""
    info = tmp_path / "site" / "broken_target-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-target\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{targets.GROUP}]\nbroken = broken_target.declaration:Broken\n")
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
    named = [line for line in done.stderr.splitlines() if "target 'broken'" in line]
    assert named == [
        f"warning: the target 'broken' is left out ({targets.GROUP}: broken = "
        "broken_target.declaration:Broken from broken-target 1.0: ModuleNotFoundError: No module named "
        "'broken_target')"
    ], done.stderr[-3000:]
    asked = subprocess.run(
        [*run, "--target", "broken"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert asked.returncode == 2
    assert asked.stderr.splitlines()[-1].startswith("error: argument --target: invalid choice: 'broken'"), (
        asked.stderr
    )

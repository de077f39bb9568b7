"""A user who installs the suite with pip (not editable) gets the console script, and the README's
CI recipe certifies from an empty directory: no runner.py, no checkout, and no top-level `cases` or
`schemas` package in site-packages to clash with another project's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from tests import readme
from tests.conftest import ROOT, venv_with_these_dependencies

TOP_LEVEL_SKIP = {".git", ".venv", "reports", "build", "dist", "tests"}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the suite installed by the recipe's own line, `pip install
    ./session-status-conformance`, from a copy of the checkout (a clone, as the recipe checks it
    out); its dependencies come from this environment (a .pth line: the machine has no internet
    beyond the registries, and CI time is better spent elsewhere), the suite itself only from the
    copy."""
    base = tmp_path_factory.mktemp("install")
    source = base / "session-status-conformance"

    def skipped(folder: str, names: list[str]) -> list[str]:
        top = Path(folder) == ROOT
        return [
            n for n in names if (top and n in TOP_LEVEL_SKIP) or n == "__pycache__" or n.endswith(".egg-info")
        ]

    shutil.copytree(ROOT, source, ignore=skipped)
    env_dir = base / "venv"
    venv_with_these_dependencies(env_dir, with_pip=True)
    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(env_dir / "bin"), os.environ["PATH"]]),  # the venv's pip
        "PIP_NO_DEPS": "1",
        # pip's inverted spelling: build with this environment's setuptools (first on the path: the
        # one ensurepip put in the new venv is too old for the project's license field)
        "PIP_NO_BUILD_ISOLATION": "0",
        "PYTHONPATH": sysconfig.get_paths()["purelib"],
        "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    install = subprocess.run(
        ["/bin/sh", "-c", readme.command("pip install ./session-status-conformance")],
        cwd=base,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-2000:]
    return env_dir


def test_the_wheel_installs_under_the_projects_namespace(installed: Path) -> None:
    purelib = next(installed.glob("lib/python*/site-packages"))
    assert (purelib / "conformance" / "cases" / "acp").is_dir()
    assert (purelib / "conformance" / "schemas" / "report.schema.json").is_file()
    revisions = ROOT / "cases" / "revisions"
    shipped = purelib / "conformance" / "cases" / "revisions"
    for source in [
        *revisions.glob("*.toml"),
        *revisions.glob("sources/*"),
    ]:  # every spec text a revision quotes
        assert (shipped / source.relative_to(revisions)).is_file(), source.name
    assert not (purelib / "cases").exists() and not (purelib / "schemas").exists()


def test_the_readme_ci_recipe_runs_from_an_empty_directory(installed: Path, tmp_path: Path) -> None:
    """The recipe's lines after its `pip install` (which the fixture stands for), as written, in
    a directory with nothing but the `dist/agent.js` the recipe names (a stand-in that runs the
    reference agent)."""
    standins = readme.StandIns(tmp_path / "ci", installed / "bin")
    empty = standins.folder
    program = shutil.which("session-status-conformance", path=standins.env["PATH"])
    assert program == str(installed / "bin" / "session-status-conformance"), "the installed program runs"
    run = standins.run(
        readme.command(
            'session-status-conformance --agent "node dist/agent.js" --report-dir conformance-report'
        )
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stderr.splitlines()[-1].startswith("CONFORMANT"), run.stderr[-500:]
    report = json.loads((empty / "conformance-report" / "report.json").read_text())
    assert report["verdict"]["exitCode"] == 0 and len(report["cases"]) >= 40
    assert (empty / "conformance-report" / "junit.xml").is_file()
    summary = standins.run(readme.command('cat conformance-report/summary.md >> "$GITHUB_STEP_SUMMARY"'))
    assert summary.returncode == 0
    assert "**CONFORMANT**" in Path(standins.env["GITHUB_STEP_SUMMARY"]).read_text()
    same = subprocess.run(
        [str(installed / "bin" / "python"), "-m", "conformance", "--help"],
        cwd=empty,
        capture_output=True,
        text=True,
    )
    assert same.returncode == 0 and "session-status-conformance" in same.stdout

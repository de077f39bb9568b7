"""A fourth target, added as a third party would add one: its own small distribution
(tests/toy_target/: a declaration, a driver, two cases, a revision file, a reference server and
its broken --forgetful variant), installed next to the suite in a fresh environment with no edit
to any file of the suite, and certified through the console script, the pytest plugin, the matrix
and replay (docs/how-to/add-target.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

import jsonschema
import pytest

from tests import readme
from tests.conftest import ROOT, venv_with_these_dependencies

SKIP = {".git", ".venv", "reports", "build", "dist", "tests"}
# The documented commands, as written (docs/how-to/add-target.md).
INSTALL = readme.command("pip install ./session-status-conformance ./toy-status-target")
REFERENCE = readme.command("session-status-conformance --target toy --report-dir reference")
FORGETFUL = readme.command(
    'session-status-conformance --toy-cmd "python -m toy_target.reference --forgetful" --report-dir bad'
)
PLUGIN = readme.command(
    'python -m pytest --pyargs toy_target.cases --toy-cmd "python -m toy_target.reference --forgetful"'
)
MATRIX = readme.command("session-status-conformance matrix reference bad")
REPLAY = readme.command(
    "session-status-conformance replay bad/replays/toy.status.unknown-is-error.replay.json"
)
REPLAY_FIXED = readme.command(
    'session-status-conformance replay bad/replays/toy.status.unknown-is-error.replay.json --toy-cmd "python -m toy_target.reference"'
)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A fresh venv with the suite and the toy target installed by the README's line, from copies
    (a build writes its *.egg-info beside the sources); dependencies from this environment."""
    base = tmp_path_factory.mktemp("toy")

    def skipped(folder: str, names: list[str]) -> list[str]:
        top = Path(folder) == ROOT
        return [n for n in names if (top and n in SKIP) or n == "__pycache__" or n.endswith(".egg-info")]

    shutil.copytree(ROOT, base / "session-status-conformance", ignore=skipped)
    shutil.copytree(ROOT / "tests" / "toy_target", base / "toy-status-target", ignore=skipped)
    env_dir = base / "venv"
    venv_with_these_dependencies(env_dir, with_pip=True)
    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(env_dir / "bin"), os.environ["PATH"]]),
        "PIP_NO_DEPS": "1",
        "PIP_NO_BUILD_ISOLATION": "0",
        "PYTHONPATH": sysconfig.get_paths()["purelib"],
        "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    done = run(INSTALL, base, env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    env.pop("PYTHONPATH")  # the suite and the toy come from the venv only, as a user's would
    return base, env


def run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def schema(installed_base: Path, name: str) -> dict:
    found = next((installed_base / "venv").glob(f"lib/python*/site-packages/conformance/schemas/{name}"))
    return json.loads(found.read_text())


def test_the_toy_target_is_certified_by_the_console_script(installed: tuple[Path, dict[str, str]]) -> None:
    base, env = installed
    reference = run(REFERENCE, base, env)
    assert reference.returncode == 0, reference.stdout[-2000:] + reference.stderr[-2000:]
    assert reference.stderr.splitlines()[-1].startswith("CONFORMANT")
    report = json.loads((base / "reference" / "report.json").read_text())
    jsonschema.validate(report, schema(base, "report.schema.json"))
    assert report["target"] == "toy" and report["subject"] == "toy/status"
    assert {c["id"]: c["outcome"] for c in report["cases"]} == {
        "toy.status.open-after-open": "pass",
        "toy.status.unknown-is-error": "pass",
    }
    assert report["spec"]["sources"] == {"toy-status@2026": "The toy protocol's status method (2026)"}

    forgetful = run(FORGETFUL, base, env)
    assert forgetful.returncode == 1, forgetful.stdout[-2000:] + forgetful.stderr[-2000:]
    broken = json.loads((base / "bad" / "report.json").read_text())
    assert {c["id"]: c["outcome"] for c in broken["cases"]} == {
        "toy.status.open-after-open": "pass",
        "toy.status.unknown-is-error": "fail",
    }


def test_the_pytest_plugin_runs_the_toy_targets_cases(installed: tuple[Path, dict[str, str]]) -> None:
    base, env = installed
    plugin = run(PLUGIN + " --report-dir plugin -p no:cacheprovider", base, env)
    assert plugin.returncode == 1, plugin.stdout[-2000:] + plugin.stderr[-2000:]
    report = json.loads((base / "plugin" / "report.json").read_text())
    assert report["target"] == "toy"
    assert [c["id"] for c in report["cases"] if c["outcome"] == "fail"] == ["toy.status.unknown-is-error"]


def test_the_matrix_and_replay_take_the_toy_target(installed: tuple[Path, dict[str, str]]) -> None:
    base, env = installed
    for command in (REFERENCE, FORGETFUL):
        run(command, base, env)
    matrix = run(MATRIX + " --markdown matrix.md -o matrix.html", base, env)
    assert matrix.returncode == 0, matrix.stderr[-2000:]
    table = (base / "matrix.md").read_text()
    assert "toy.status.unknown-is-error" in table and "non-conformant" in table

    replay_file = base / "bad" / "replays" / "toy.status.unknown-is-error.replay.json"
    jsonschema.validate(json.loads(replay_file.read_text()), schema(base, "replay.schema.json"))
    still = run(REPLAY, base, env)
    assert still.returncode == 1 and "STILL FAILING" in still.stdout, still.stdout + still.stderr
    fixed = run(REPLAY_FIXED, base, env)
    assert fixed.returncode == 0 and "FIXED" in fixed.stdout, fixed.stdout + fixed.stderr


def test_adding_it_edited_no_file_of_the_suite() -> None:
    """The toy's distribution imports the suite's public modules and nothing of the suite names it."""
    mentions = [
        str(path.relative_to(ROOT))
        for folder in ("conformance", "cases", "schemas")
        for path in (ROOT / folder).rglob("*")
        if path.is_file()
        and path.suffix in (".py", ".json", ".toml")
        and "toy" in path.read_text(errors="replace")
    ]
    assert mentions == []

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
import sys
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
    # The suite's files without the toy: uninstalled and installed again (a few seconds; the
    # suite alone before the README's line would build the suite twice).
    with_toy = suite_files(env)
    for again in ("pip uninstall --yes toy-status-target", "pip install ./toy-status-target"):
        done = run(again, base, env)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        if "uninstall" in again:
            (base / "suite-without-toy.json").write_text(json.dumps(suite_files(env)))
    (base / "suite-with-toy.json").write_text(json.dumps(with_toy))
    env.pop("PYTHONPATH")  # the suite and the toy come from the venv only, as a user's would
    return base, env


# The installed suite's files and their hashes (its RECORD, compiled files aside), by path.
# The venv's own installation: the first on sys.path may be another's (PYTHONPATH, or a build's
# *.egg-info in the working directory).
SUITE_FILES = """
import hashlib, json, sysconfig, importlib.metadata as m
here = [sysconfig.get_paths()["purelib"]]
files = next(iter(m.distributions(name="session-status-conformance", path=here))).files or []
print(json.dumps({
    str(f): hashlib.sha256(f.locate().read_bytes()).hexdigest()
    for f in files
    if f.suffix != ".pyc" and not f.parts[0].endswith(".dist-info")
}))
"""


def suite_files(env: dict[str, str]) -> dict[str, str]:
    done = subprocess.run(["python", "-c", SUITE_FILES], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


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
    # The toy's system names itself through the default describe hook; no "agent" for a server.
    assert report["system"]["name"] == "toy-reference" and report["system"]["version"] == "1.0"
    assert "agent" not in report and "acp" not in report
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


def test_adding_it_changed_no_file_of_the_suite(installed: tuple[Path, dict[str, str]]) -> None:
    """The suite's installed files are the same, byte for byte, with the toy's distribution
    installed beside it, without it, and after the tests here ran it."""
    base, env = installed
    without = json.loads((base / "suite-without-toy.json").read_text())
    assert len(without) > 100 and "conformance/targets/__init__.py" in without
    assert json.loads((base / "suite-with-toy.json").read_text()) == without
    assert suite_files(env) == without
    toy = "import importlib.metadata as m; print(*m.distribution('toy-status-target').files or [])"
    listed = subprocess.run(["python", "-c", toy], env=env, capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr[-2000:]
    tops = {Path(f).parts[0] for f in listed.stdout.split()}
    assert tops - {"toy_target", "toy_status_target-0.1.0.dist-info"} == set(), (
        tops
    )  # nothing in conformance/


def test_the_suites_unit_tests_pass_with_the_toy_installed(tmp_path: Path) -> None:
    """The suite's own unit tests check the suite's targets and revisions, whatever else is
    installed: they pass with the toy target's distribution on the path."""
    # From a copy: a build writes its build/ and *.egg-info beside the sources.
    source = shutil.copytree(ROOT / "tests" / "toy_target", tmp_path / "toy-status-target")
    pip = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--no-index",
        "--no-build-isolation",
    ]
    done = subprocess.run(
        [*pip, "--target", str(tmp_path / "site"), str(source)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    listed = subprocess.run(
        [sys.executable, "-c", "from conformance.targets import TARGETS; print(*(t.name for t in TARGETS))"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.stdout.split() == ["acp", "http", "mcp", "toy"], listed.stderr[-2000:]
    unit = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/unit", "-q", "-p", "no:randomly"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert unit.returncode == 0, unit.stdout[-3000:] + unit.stderr[-2000:]

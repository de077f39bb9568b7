"""The GitHub Action (action.yml at the repository's root), run as a runner runs a composite
action: each `run:` step in bash, in the workspace, with the files and variables a runner sets
(GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ACTION_PATH, GITHUB_WORKSPACE, RUNNER_TEMP …), its
`${{ }}` expressions evaluated, a step skipped when its `if:` says so or an earlier step failed.
The `uses:` steps (actions/setup-python, actions/upload-artifact) cannot run here: their inputs are
checked to be wired. Against the reference, a broken agent, a baseline and a usage error, the
action's outputs, the job summary and whether the job fails are checked."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, agent_command, venv_with_these_dependencies

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
TOP_LEVEL_SKIP = {".git", ".venv", "reports", "build", "dist", ".pytest_cache"}


@dataclass
class Job:
    """What a run of the action left: its outputs, the job summary, the steps that ran, the
    `uses:` steps with their inputs as the runner would pass them, and the job's exit."""

    outputs: dict[str, str]
    summary: str
    ran: list[str]
    uses: dict[str, dict[str, Any]]
    exit_code: int
    log: str
    workspace: Path
    step_outputs: dict[str, dict[str, str]] = field(default_factory=dict)


def _value(expression: str, inputs: dict[str, str], steps: dict[str, dict[str, str]]) -> str:
    expression = expression.strip()
    if expression.startswith("inputs."):
        return inputs[expression.removeprefix("inputs.")]
    found = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
    if found:
        return steps.get(found.group(1), {}).get(found.group(2), "")
    raise AssertionError(f"this test's runner does not evaluate ${{{{ {expression} }}}}")


def expand(text: str, inputs: dict[str, str], steps: dict[str, dict[str, str]]) -> str:
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: _value(m.group(1), inputs, steps), str(text))


def condition(expression: str | None, inputs: dict[str, str], failed: bool) -> bool:
    """A step's `if:` as the action writes them: terms joined by &&, each always(), or an input
    compared with a quoted string; without always() a step runs only while nothing has failed."""
    if expression is None:
        return not failed
    terms = [t.strip() for t in expression.split("&&")]
    result = "always()" in terms or not failed
    for term in terms:
        if term == "always()":
            continue
        found = re.fullmatch(r"inputs\.([\w-]+)\s*(==|!=)\s*'([^']*)'", term)
        assert found, f"this test's runner does not evaluate `if: {expression}`"
        equal = inputs[found.group(1)] == found.group(3)
        result = result and (equal if found.group(2) == "==" else not equal)
    return result


def read_outputs(path: Path) -> dict[str, str]:
    outputs = {}
    for line in path.read_text().splitlines():
        if "=" in line:
            name, _, value = line.partition("=")
            outputs[name] = value
    return outputs


@pytest.fixture(scope="module")
def action_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The action's own checkout: a copy of the repository (pip builds in the folder it installs)."""
    folder = tmp_path_factory.mktemp("action") / "session-status-conformance"

    def skipped(where: str, names: list[str]) -> list[str]:
        top = Path(where) == ROOT
        return [
            n for n in names if (top and n in TOP_LEVEL_SKIP) or n == "__pycache__" or n.endswith(".egg-info")
        ]

    shutil.copytree(ROOT, folder, ignore=skipped)
    return folder


@pytest.fixture(scope="module")
def runner_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """RUNNER_TEMP, with the action's virtual environment made ready for an install without the
    network: its dependencies come from this environment (a .pth line, as tests/e2e/test_install.py
    does), so the install step builds and installs only the suite itself, from the action's folder."""
    temp = tmp_path_factory.mktemp("runner-temp")
    venv_with_these_dependencies(temp / "session-status-conformance", with_pip=False)
    return temp


def run_action(inputs: dict[str, str], action_path: Path, temp: Path, workspace: Path) -> Job:
    """The composite action's steps as a runner runs them."""
    given = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    assert set(inputs) <= set(given), f"no such inputs: {set(inputs) - set(given)}"
    given |= inputs
    workspace.mkdir(parents=True, exist_ok=True)
    files = workspace.parent / f"{workspace.name}-runner-files"
    files.mkdir()
    summary = files / "step_summary.md"
    summary.touch()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "PYTEST_"))}
    env |= {
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_ACTION_PATH": str(action_path),
        "GITHUB_JOB": "certify",
        "RUNNER_OS": "Linux",
        "RUNNER_ARCH": "X64",
        "GITHUB_WORKSPACE": str(workspace),
        "RUNNER_TEMP": str(temp),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_ENV": str(files / "env"),
        "GITHUB_PATH": str(files / "path"),
        # The setup-python step cannot run here: this environment's Python stands in for it.
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        # The install without the network: the suite alone, built with this environment's setuptools.
        "PIP_NO_DEPS": "1",
        "PIP_NO_BUILD_ISOLATION": "0",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        # The README's commands run with the smoke budget (tests/readme.py): the same here.
        "PYTEST_ADDOPTS": "--profile smoke",
    }
    steps: dict[str, dict[str, str]] = {}
    ran, uses, log = [], {}, []
    failed, exit_code = False, 0
    for number, step in enumerate(ACTION["runs"]["steps"]):
        name = step.get("name", f"step {number}")
        if not condition(step.get("if"), given, failed):
            continue
        if "uses" in step:
            uses[step["uses"].split("@")[0]] = {
                k: expand(v, given, steps) for k, v in (step.get("with") or {}).items()
            }
            ran.append(name)
            continue
        assert step.get("shell") == "bash", f"{name}: a composite step names its shell"
        output = files / f"output-{number}"
        output.touch()
        step_env = env | {"GITHUB_OUTPUT": str(output)}
        step_env |= {k: expand(v, given, steps) for k, v in (step.get("env") or {}).items()}
        script = files / f"step-{number}.sh"
        script.write_text(expand(step["run"], given, steps))
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=step_env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        ran.append(name)
        log.append(f"--- {name} (exit {done.returncode})\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        if "id" in step:
            steps[step["id"]] = read_outputs(output)
        if done.returncode != 0:
            failed, exit_code = True, done.returncode
    outputs = {name: expand(spec["value"], given, steps) for name, spec in ACTION["outputs"].items()}
    return Job(outputs, summary.read_text(), ran, uses, exit_code, "\n".join(log), workspace, steps)


def test_the_action_declares_what_a_workflow_passes_and_reads() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert {"target", "command", "url", "args", "expected-failures", "report-dir", "python-version"} <= set(
        ACTION["inputs"]
    )
    assert {"verdict", "exit-code"} <= set(ACTION["outputs"])
    for output in ("verdict", "exit-code"):
        assert ACTION["outputs"][output]["value"] == f"${{{{ steps.certify.outputs.{output} }}}}"
    setup = next(s for s in ACTION["runs"]["steps"] if s.get("uses", "").startswith("actions/setup-python@"))
    assert setup["with"]["python-version"] == "${{ inputs.python-version }}"
    install = next(s for s in ACTION["runs"]["steps"] if "pip install" in s.get("run", ""))
    assert '"$GITHUB_ACTION_PATH"' in install["run"], "the suite is installed from the action's own checkout"
    # Inputs reach the scripts as environment variables, never pasted into them.
    for step in ACTION["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step.get("name")


def artifact_name(inputs: dict[str, str], job: str = "certify", system: str = "Linux") -> str:
    """The name the action's first step gives the uploaded report folder, the step run alone."""
    step = ACTION["runs"]["steps"][0]
    assert step["id"] == "artifact"
    given = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()} | inputs
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_"))}
    env |= {k: expand(v, given, {}) for k, v in step["env"].items()}
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "output"
        env |= {"GITHUB_OUTPUT": str(output), "GITHUB_JOB": job, "RUNNER_OS": system, "RUNNER_ARCH": "X64"}
        subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], env=env, check=True
        )
        return read_outputs(output)["name"]


def test_the_default_artifact_name_is_unique_per_job_and_matrix_entry() -> None:
    """upload-artifact v4 refuses a name used twice in a workflow run: two jobs, or two entries of
    a matrix (other args, another agent, another runner system), get two names; a name given is kept."""
    first = artifact_name({"args": "--protocol 1"})
    assert re.fullmatch(r"conformance-report-certify-\d+", first), first
    assert artifact_name({"args": "--protocol 1"}) == first, "the same job's name, every attempt"
    others = {
        artifact_name({"args": "--protocol 2"}),
        artifact_name({"args": "--protocol 1"}, job="nightly"),
        artifact_name({"args": "--protocol 1"}, system="macOS"),
        artifact_name({"args": "--protocol 1", "command": "node agent.js"}),
        artifact_name({"args": "--protocol 1", "python-version": "3.12"}),
    }
    assert len(others) == 5 and first not in others
    assert artifact_name({"artifact-name": "mine"}) == "mine"
    assert artifact_name({"artifact-name": ""}) == ""


@pytest.mark.slow
def test_the_action_certifies_the_reference_and_fails_a_broken_agent(
    action_path: Path, runner_temp: Path, tmp_path: Path
) -> None:
    reference = run_action({}, action_path, runner_temp, tmp_path / "reference")
    assert reference.outputs["verdict"] == "conformant" and reference.outputs["exit-code"] == "0", (
        reference.log
    )
    assert reference.exit_code == 0, reference.log
    assert "**CONFORMANT**" in reference.summary
    assert (reference.workspace / "conformance-report" / "report.html").is_file()
    upload = reference.uses["actions/upload-artifact"]
    assert upload["path"] == "conformance-report" and upload["name"].startswith("conformance-report-certify-")
    assert reference.outputs["artifact-name"] == upload["name"]
    assert reference.uses["actions/setup-python"] == {"python-version": "3.11"}

    broken = run_action(
        {"command": agent_command("status_loads_inactive"), "report-dir": "out"},
        action_path,
        runner_temp,
        tmp_path / "broken",
    )
    assert broken.outputs["verdict"] == "non-conformant" and broken.outputs["exit-code"] == "1", broken.log
    assert broken.exit_code == 1, "the job fails on the verdict"
    assert "Verdict" in broken.ran and "Upload the reports" in broken.ran, "the reports are uploaded anyway"
    assert broken.uses["actions/upload-artifact"]["path"] == "out"
    assert "**NON-CONFORMANT**" in broken.summary
    assert "`status.no-side-effects.inactive-stays-inactive`" in broken.summary
    assert "session-status-conformance reproduce " in broken.summary, "each failure says how to reproduce it"


@pytest.mark.slow
def test_the_action_gates_on_a_baseline_and_reports_a_usage_error(
    action_path: Path, runner_temp: Path, tmp_path: Path
) -> None:
    baseline = tmp_path / "known" / "conformance-baseline.toml"
    baseline.parent.mkdir(parents=True)
    baseline.write_text(
        '[[expected-failures]]\nid = "status.no-side-effects.inactive-stays-inactive"\nreason = "loads on status (#1)"\n'
    )
    known = run_action(
        {
            "command": agent_command("status_loads_inactive"),
            "args": "-k 'inactive-stays-inactive or after-new'",
            "expected-failures": str(baseline),
            "artifact-name": "",
        },
        action_path,
        runner_temp,
        tmp_path / "known",
    )
    assert known.outputs["exit-code"] == "0" and known.exit_code == 0, known.log
    assert known.outputs["verdict"] == "partial"
    assert "actions/upload-artifact" not in known.uses, "no artifact name: no upload"
    assert "Baseline gate (exit 0)" in known.summary

    missing = run_action({"command": "python no_such_agent.py"}, action_path, runner_temp, tmp_path / "typo")
    assert missing.outputs["verdict"] == "error" and missing.outputs["exit-code"] == "2", missing.log
    assert missing.outputs["report-dir"] == "conformance-report"
    assert missing.exit_code == 2
    assert "agent command names a file that does not exist: 'no_such_agent.py'" in missing.summary

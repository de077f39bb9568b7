"""`session-status-conformance fleet` end to end: the reference agent and the bad inputs of a fleet
(an agent that hangs in initialize, one that prints garbage, one whose child escapes its process
group; malformed registry entries, an unknown distribution kind, a package that does not exist),
the history and --changed-only against the first run, and the example nightly workflow's plan and
merge steps around the project's Action.

Real released agents (examples/fleet.toml, installed from npm and PyPI) run only with
CONFORMANCE_FLEET_REAL=1: their installs and starts take minutes, past the CI budget.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conformance.fleet import command
from tests import readme
from tests.conftest import ROOT
from tests.e2e import test_action

SCHEMA = json.loads((ROOT / "schemas" / "fleet.schema.json").read_text())
AGENTS = ROOT / "tests" / "agents"
# The Action's checkout and RUNNER_TEMP, as its own test makes them (module fixtures).
action_path = test_action.action_path
runner_temp = test_action.runner_temp
WORKFLOW = yaml.safe_load((ROOT / "examples" / "fleet-nightly.yml").read_text())


def fleet(tmp_path: Path, *argv: str) -> tuple[int, dict[str, Any]]:
    out = tmp_path / "fleet"
    code = command.main([*argv, "--out", str(out), "--cache", str(tmp_path / "cache")])
    data = json.loads((out / "fleet.json").read_text())
    jsonschema.validate(data, SCHEMA)
    assert data["exitCode"] == code
    return code, data


def rows(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in data["agents"]}


def agent_toml(agent_id: str, command_line: str, *args: str) -> str:
    words = ", ".join(json.dumps(a) for a in args)
    return f'[[agent]]\nid = "{agent_id}"\nversion = "1"\ncommand = {json.dumps(command_line)}\nargs = [{words}]\n\n'


@pytest.mark.slow
def test_a_fleet_of_the_reference_and_bad_agents_gives_one_row_each(tmp_path: Path) -> None:
    listing = tmp_path / "fleet.toml"
    listing.write_text(
        "[defaults]\nmax-prompts = 4\ntime-limit = 240\n\n"
        + agent_toml("reference", "{python} -m conformance.reference.acp.agent", "--profile", "smoke")
        + agent_toml(
            "hangs", f"{{python}} {AGENTS / 'misbehaving' / 'never_initializes.py'}", "--timeout", "3"
        )
        + agent_toml("garbage", f"{{python}} {AGENTS / 'fleet' / 'prints_garbage.py'}", "--timeout", "3")
        + agent_toml(
            "escapes",
            f"{{python}} {AGENTS / 'fleet' / 'escapes_group.py'}",
            "-k",
            "status.result.shape",
            "--profile",
            "smoke",
        )
        + '[[agent]]\nid = "missing-program"\nversion = "1"\ncommand = "no-such-agent-program --acp"\n'
    )
    code, data = fleet(tmp_path, str(listing), "--workers", "2")
    got = rows(data)
    assert got["reference"]["verdict"] == "conformant", got["reference"]
    assert got["reference"]["revision"] and got["reference"]["promptsSent"] <= 4
    assert got["reference"]["initialize"]["agentInfo"]["name"] == "acp-reference-agent"
    assert (tmp_path / "fleet" / got["reference"]["report"]).is_file()
    for name in ("hangs", "garbage"):
        assert got[name]["status"] == "no-verdict" and "did not answer initialize" in got[name]["reason"], (
            got[name]
        )
    escaped = got["escapes"]
    assert [p["name"] for p in escaped["leftProcesses"]] == ["sleep"], escaped
    assert "left 1 process(es) running" in escaped["reason"]
    for process in escaped["leftProcesses"]:
        stat = Path(f"/proc/{process['pid']}/stat")
        assert not stat.exists() or stat.read_text().split(")")[-1].split()[0] == "Z", "the sweep ended it"
    assert (
        got["missing-program"]["status"] == "unsupported"
        and "no-such-agent-program" in got["missing-program"]["reason"]
    )
    assert code == 1, "an installed agent without a verdict: not every certifiable agent conformed"
    page = (tmp_path / "fleet" / "fleet.html").read_text()
    assert (
        page.count("<tr data-agent=") == 5 and (tmp_path / "fleet" / "badges" / "reference@1.svg").is_file()
    )
    assert "| reference | 1 | **CONFORMANT** |" in (tmp_path / "fleet" / "fleet.md").read_text()

    # The next night: the reference's version unchanged, its result reused; one agent gone.
    previous = tmp_path / "previous"
    shutil.copytree(tmp_path / "fleet", previous)
    again, data = fleet(
        tmp_path,
        str(listing),
        "--only",
        "reference",
        "--previous",
        str(previous / "fleet.json"),
        "--changed-only",
    )
    (reference,) = data["agents"]
    assert reference["reused"] and reference["verdict"] == "conformant" and again == 0
    assert (tmp_path / "fleet" / reference["report"]).is_file(), "the reused report is carried over"
    assert {c["kind"] for c in data["history"]["changes"]} == {"agent-gone"}


def test_bad_registry_entries_are_rows_and_the_fleet_finishes(tmp_path: Path) -> None:
    listing = tmp_path / "registry.json"
    listing.write_text(
        json.dumps(
            {
                "version": "1.0.0",
                "agents": [
                    {"id": "no-distribution", "name": "x", "version": "1.0.0"},
                    ["not", "an", "object"],
                    {"id": "docker-only", "version": "1", "distribution": {"docker": {"image": "x"}}},
                    {
                        "id": "no-such-package",
                        "version": "0.0.1",
                        "distribution": {
                            "npx": {"package": "@session-status-conformance/no-such-agent@0.0.1"}
                        },
                    },
                    {
                        "id": "darwin-only",
                        "version": "1",
                        "distribution": {"binary": {"darwin-aarch64": {"archive": "a.zip", "cmd": "./a"}}},
                    },
                ],
            }
        )
    )
    code, data = fleet(tmp_path, str(listing))
    got = rows(data)
    assert [r["status"] for r in data["agents"]] == [
        "invalid",
        "invalid",
        "unsupported",
        "install-failed",
        "unsupported",
    ]
    assert "404" in got["no-such-package"]["reason"] or "npm" in got["no-such-package"]["reason"]
    assert code == 2, "nothing could be certified"


@pytest.mark.skipif(
    not os.environ.get("CONFORMANCE_FLEET_REAL"), reason="real agents: set CONFORMANCE_FLEET_REAL=1"
)
def test_the_example_fleet_with_real_released_agents(tmp_path: Path) -> None:
    """The references and the released agents of examples/fleet.toml, installed from npm and PyPI
    into the machine's fleet cache (reused between runs)."""
    written = readme.command(
        "session-status-conformance fleet examples/fleet.toml --workers 2 --out reports/fleet"
    )
    argv = shlex.split(written)[2:]  # after the program and its subcommand
    out = tmp_path / "fleet"
    argv[argv.index("--out") + 1] = str(out)
    argv[0] = str(ROOT / argv[0])
    code = command.main([*argv, "--time-limit", "600"])
    data = json.loads((out / "fleet.json").read_text())
    jsonschema.validate(data, SCHEMA)
    got = rows(data)
    assert (
        got["reference-acp-v1"]["verdict"] == "conformant"
        and got["reference-acp-v2"]["verdict"] == "conformant"
    )
    real = [r for r in data["agents"] if not r["id"].startswith("reference") and r["status"] == "certified"]
    if len(real) < 2:
        reasons = "; ".join(
            f"{r['id']}: {r.get('reason')}" for r in data["agents"] if r["status"] != "certified"
        )
        pytest.skip(f"fewer than two real agents could be installed and certified here: {reasons}")
    assert code == 3, "released agents do not implement session/status yet"


# --- the example workflow ------------------------------------------------------------------------


def run_step(
    step: dict[str, Any], cwd: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """A `run:` step as a runner runs it (bash -e, GITHUB_OUTPUT); its outputs."""
    output = cwd / f"output-{abs(hash(step['name']))}"
    output.write_text("")
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=cwd,
        env=env | {"GITHUB_OUTPUT": str(output)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return done, outputs


def step(job: str, name: str) -> dict[str, Any]:
    return next(s for s in WORKFLOW["jobs"][job]["steps"] if s.get("name") == name)


@pytest.mark.slow
def test_the_nightly_workflow_plans_certifies_with_the_action_and_merges(
    tmp_path: Path, action_path: Path, runner_temp: Path
) -> None:
    listing = tmp_path / "fleet.toml"
    listing.write_text(
        agent_toml(
            "reference", "{python} -m conformance.reference.acp.agent", "-k", "status.result or unknown"
        )
        + '[[agent]]\nid = "mac-only"\nversion = "1"\nbinary = { darwin-aarch64 = { archive = "a.zip", cmd = "./a" } }\n'
    )
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    summary = tmp_path / "summary.md"
    summary.touch()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "PYTEST_"))}
    env |= WORKFLOW["env"] | {
        "FLEET_LIST": str(listing),
        "GITHUB_STEP_SUMMARY": str(summary),
        # The setup-python and install steps cannot run here: this environment stands in for them.
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    done, outputs = run_step(step("plan", "Plan"), workspace, env)
    assert done.returncode == 0, done.stderr
    matrix = json.loads(outputs["matrix"])
    assert [m["id"] for m in matrix["include"]] == ["reference"], (
        "the binary for another platform is not planned"
    )
    assert "not in the matrix (the merge reports them): mac-only" in done.stderr

    certify = next(s for s in WORKFLOW["jobs"]["certify"]["steps"] if s.get("uses") == "./")
    downloads = workspace / "downloads"
    for entry in matrix["include"]:
        given = {
            k: str(v).replace("${{ matrix.command }}", entry["command"]) for k, v in certify["with"].items()
        }
        given = {
            k: v.replace("${{ matrix.args }}", entry["args"]).replace(
                "${{ matrix.artifact }}", entry["artifact"]
            )
            for k, v in given.items()
        }
        job = test_action.run_action(given, action_path, runner_temp, tmp_path / entry["slug"])
        assert job.outputs["exit-code"] == "0" or job.outputs["verdict"] == "partial", job.log
        upload = job.uses["actions/upload-artifact"]
        assert upload["name"] == entry["artifact"]
        # actions/download-artifact with a pattern: one folder per artifact, named after it.
        shutil.copytree(job.workspace / upload["path"], downloads / upload["name"])

    done, outputs = run_step(step("merge", "Merge"), workspace, env)
    assert done.returncode == 0, done.stderr
    merged = json.loads((workspace / "fleet" / "fleet.json").read_text())
    jsonschema.validate(merged, SCHEMA)
    got = rows(merged)
    assert got["reference"]["status"] == "certified" and got["reference"]["verdict"] == "partial"
    assert (workspace / "fleet" / got["reference"]["report"]).is_file()
    assert got["mac-only"]["status"] == "unsupported"
    assert outputs["exit-code"] == str(merged["exitCode"]) == "3"
    assert "| reference | 1 |" in summary.read_text()
    assert (workspace / "previous" / "fleet.json").is_file(), "kept for the next night's history"


def test_the_docs_plan_command_prints_a_job_matrix(capsys: pytest.CaptureFixture[str]) -> None:
    written = readme.command("session-status-conformance fleet plan examples/fleet.toml")
    argv = shlex.split(written)[2:]
    argv[1] = str(ROOT / argv[1])
    assert command.main(argv) == 0
    matrix = json.loads(capsys.readouterr().out)
    ids = [entry["id"] for entry in matrix["include"]]
    assert {"reference-acp-v1", "reference-acp-v2"} <= set(ids), ids
    assert all(entry["command"] for entry in matrix["include"])

"""Sequence-only bugs are caught with a minimal, replayable reproduction."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from tests.conftest import REFERENCE_MODULE, ROOT, agent_command, python_command, revision_kept
from tests.targets.acp.test_broken_agents import FUZZ_PARAMS, SEQ, SEQUENCE_ONLY

REPLAY_SCHEMA = json.loads((ROOT / "schemas" / "replay.schema.json").read_text())
REFERENCE = python_command("-m", REFERENCE_MODULE)


def replay(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`replay FILE [--agent CMD]`, in this process (the command line's own subcommand)."""
    import contextlib
    import io

    from conformance.cli import replay_main

    out, err = io.StringIO(), io.StringIO()
    with revision_kept(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = replay_main([str(path), *args])
    return subprocess.CompletedProcess(["replay", str(path), *args], code, out.getvalue(), err.getvalue())


@pytest.mark.slow
@pytest.mark.parametrize("agent", sorted(SEQUENCE_ONLY))
def test_sequence_bug_is_caught_minimal_and_replayable(agent: str, direct, tmp_path: Path) -> None:
    run = direct("--agent", agent_command(agent), cases=[SEQ])
    case = run.case(SEQ)
    assert case["outcome"] == "fail", case["message"]
    assert case["details"]["seed"] == 0 and case["details"]["profile"] == "ci"
    sequence = [line for line in case["details"]["sequence"] if not line.startswith(" ")]
    assert len(sequence) == SEQUENCE_ONLY[agent], "\n".join(sequence)
    assert sequence[0].startswith("1. ") and "-->" in "\n".join(case["details"]["sequence"])
    assert f"seed {case['details']['seed']}" in case["message"]

    path = Path(case["details"]["replay_file"])
    data = json.loads(path.read_text())
    Draft202012Validator(REPLAY_SCHEMA).validate(data)
    assert len(data["steps"]) == SEQUENCE_ONLY[agent]

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(scratch))
        still = replay(path)
    assert still.returncode == 1 and "STILL FAILING" in still.stdout, still.stdout + still.stderr
    assert list(scratch.iterdir()) == [], "the replay left its working folder behind"
    fixed = replay(path, "--agent", REFERENCE)
    assert fixed.returncode == 0 and "FIXED" in fixed.stdout, fixed.stdout + fixed.stderr

    # Minimal: without any one of its steps, the sequence no longer fails.
    for i in range(len(data["steps"])):
        shorter = dict(data, steps=data["steps"][:i] + data["steps"][i + 1 :])
        candidate = tmp_path / f"without-{i}.json"
        candidate.write_text(json.dumps(shorter))
        result = replay(candidate)
        assert result.returncode == 0, f"step {i + 1} can be removed:\n{result.stdout}"


@pytest.mark.parametrize(
    ("agent", "case_id"),
    [("crash_on_control_chars", FUZZ_PARAMS), ("sdk_without_guard", "fuzz.frames.survives")],
)
def test_fuzz_finding_is_replayable(agent: str, case_id: str, direct) -> None:
    """A fuzz case's shrunk input gets a replay file: `replay` checks that input alone, STILL
    FAILING on the agent that broke, FIXED on the reference."""
    run = direct("--agent", agent_command(agent), cases=[case_id])
    case = run.case(case_id)
    assert case["outcome"] in ("fail", "warn"), case["message"]
    path = Path(case["details"]["replay_file"])
    assert case["reproduce"] == f"session-status-conformance replay {path}", (
        "the one command that reproduces it"
    )
    data = json.loads(path.read_text())
    Draft202012Validator(REPLAY_SCHEMA).validate(data)
    assert data["case"] == case_id and data["steps"] == [] and data["input"]

    still = replay(path)
    assert still.returncode == 1 and "STILL FAILING" in still.stdout, still.stdout + still.stderr
    assert f"input: {case['details']['input']}" in still.stdout
    fixed = replay(path, "--agent", REFERENCE)
    assert fixed.returncode == 0 and "FIXED" in fixed.stdout, fixed.stdout + fixed.stderr


def test_shrinking_stops_at_its_budget_with_the_smallest_failure(direct, monkeypatch) -> None:
    """With no time to shrink, the run reports the smallest failing sequence Hypothesis had seen,
    cut to a 1-minimal one by the last pass. The rare bug is found by Hypothesis, not by the
    steered scenarios, and unbounded shrinking took it 20-95 s; 5 steps are all it needs (a
    session, a status with _meta, the session let go, a status with _meta)."""
    from dataclasses import replace

    from conformance.core import profiles

    monkeypatch.setitem(profiles.PROFILES, "ci", replace(profiles.PROFILES["ci"], shrink_budget=0.0))
    case = direct("--agent", agent_command("rare_meta_attaches"), "--seed", "1", cases=[SEQ]).case(SEQ)
    assert case["outcome"] == "fail", case["message"]
    sequence = [line for line in case["details"]["sequence"] if not line.startswith(" ")]
    assert len(sequence) == 5, "\n".join(sequence)


def test_replay_of_a_bad_file_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    result = replay(bad)
    assert result.returncode == 2 and "not a replay file" in result.stderr


def test_dev_profile_prints_and_honours_its_seed(suite) -> None:
    """On an agent both generated cases fail at once (a conforming one would spend the dev
    profile's whole budget, seconds of generating, to show the same two fields)."""
    agent = agent_command("unknown_internal_error")
    run = suite("-k", "sequence or fuzz.status", "--profile", "dev", "--seed", "7", "--agent", agent)
    assert run.code == 1, run.stderr
    assert {run.case(SEQ)["outcome"], run.case("fuzz.status.params")["outcome"]} == {"fail"}
    assert "--seed 7" in run.stdout + run.stderr
    assert {run.case(SEQ)["details"]["seed"], run.case("fuzz.status.params")["details"]["seed"]} == {7}
    assert run.case(SEQ)["details"]["profile"] == "dev"


# The rule each sequence-only bug breaks, so its failure quotes that rule's sentence.
SEQUENCE_RULES = {
    # The resurrection shows either way, by where the race's timing puts the first status answer:
    # inactive, then active with only status calls between (status-loads), or active right after
    # the close was answered (not-active-after-release, when the machine is loaded).
    "status_race_close_resurrects_used": ("status-loads", "not-active-after-release"),
    "third_status_loads": ("status-loads",),
    "status_duplicates_after_resume": ("list-no-duplicate",),
    "status_evicts_after_cancel": ("no-eviction",),
    "status_meta_attaches": ("status-loads",),
    "status_flushes_load_replay": ("no-notification",),
}


@pytest.mark.slow
@pytest.mark.parametrize("agent", sorted(SEQUENCE_ONLY))
def test_ci_profile_finds_each_sequence_only_bug_in_ten_seeds_of_ten(agent: str, tmp_path: Path) -> None:
    """The ci profile's budget is short; the step combinations that matter run first, whatever the
    seed, so a sequence-only bug is found every time, not when the draw is lucky."""
    import anyio.to_thread

    from conformance.core import revisions
    from conformance.core.config import AgentConfig
    from conformance.core.profiles import PROFILES
    from conformance.runtime import Runtime
    from conformance.targets.acp.machine import run_sequences
    from conformance.targets.acp.target import AcpTarget

    config = AgentConfig.from_options(
        agent_command(agent), cwd=None, env=[], timeout=10, settle=0.05, sandbox=tmp_path, target="acp"
    )
    runtime = Runtime(config)
    with revision_kept():
        try:
            runtime.start()
            revisions.use("rfd-2026-10-26")
            found = []
            target = runtime.target
            assert isinstance(target, AcpTarget)
            for seed_value in range(10):
                run = runtime.call(
                    lambda s=seed_value: anyio.to_thread.run_sync(
                        lambda: run_sequences(target, PROFILES["ci"], seed_value=s, report_dir=None)
                    )
                )
                found.append((run.failure is not None, run.rule))
        finally:
            runtime.close()
    assert all(failed and rule in SEQUENCE_RULES[agent] for failed, rule in found), found


@pytest.mark.slow
@pytest.mark.parametrize(
    ("agent", "rule", "sentence"),
    [
        ("no_error_data", "unknown-error-data", "with the requested `sessionId` in `data`"),
        ("status_replays_history", "no-notification", "session/status MUST NOT have side effects."),
        ("still_active_after_close", "not-active-after-release", "inactive: The Agent knows the session"),
        # Called inactive by status, then active with only status calls between, and still active
        # asked again: a status call loaded it, which is the side-effect sentence's, not inactive's.
        ("status_loads_inactive", "status-loads", "session/status MUST NOT have side effects."),
        ("resume_refuses_closed", "inactive-resumable", "The Client can call session/resume"),
        ("unknown_internal_error", "unknown-error-code", "Unknown: the Agent does not know this session."),
    ],
)
def test_a_sequence_failure_quotes_the_sentence_of_its_rule(
    direct, agent: str, rule: str, sentence: str
) -> None:
    run = direct("--agent", agent_command(agent), cases=[SEQ])
    case = run.case(SEQ)
    assert case["outcome"] == "fail" and case["rule"] == rule, case["message"]
    assert sentence in case["spec"]["sentence"], case["spec"]


def test_replay_says_fixed_only_after_the_tries_its_rate_needs(tmp_path: Path) -> None:
    """A replay file records how its failure reproduced alone when found. On an agent where it no
    longer fails, `replay` says FIXED only after the tries that rate needs for 99 % (2 of 3: 7),
    and never for a failure that did not once fail alone: that is its own answer, exit 4, saying
    what to run instead."""
    body = {
        "format": "session-status-conformance/replay@1",
        "suite": {"name": "session-status-conformance", "version": "0"},
        "target": "acp",
        "spec": {"revision": "rfd-2026-10-26"},
        "agent": {"command": ["python", "agent.py"]},
        "case": SEQ,
        "seed": 0,
        "profile": "ci",
        "failure": "step 2 status(s0): it said inactive",
        "steps": [{"op": "new", "ref": "s0"}, {"op": "status", "ref": "s0"}],
        "frames": {"sent": [], "received": []},
    }
    rare = tmp_path / "rare.replay.json"
    rare.write_text(
        json.dumps({**body, "reproduced": {"failed": 2, "tries": 3, "text": "reproduced alone 2 of 3"}})
    )
    Draft202012Validator(REPLAY_SCHEMA).validate(json.loads(rare.read_text()))
    fixed = replay(rare, "--agent", REFERENCE)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert (
        "FIXED: the sequence no longer fails: 0 failures in 7 tries; at the rate it was found (reproduced "
        in (fixed.stdout)
    )
    never = tmp_path / "never.replay.json"
    never.write_text(
        json.dumps({**body, "reproduced": {"failed": 0, "tries": 6, "text": "0 of 6: only in the full run"}})
    )
    unknown = replay(never, "--agent", REFERENCE)
    assert unknown.returncode == 4 and "FIXED" not in unknown.stdout, unknown.stdout + unknown.stderr
    assert "NOT REPRODUCIBLE ALONE: 0 failures in 3 tries" in unknown.stdout
    assert f"-k {SEQ} several times" in unknown.stdout

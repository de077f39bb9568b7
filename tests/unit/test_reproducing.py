"""What a failure's reproduction is made of, on data: the run's options as files keep them (secrets
redacted), the options a replay starts the agent with (recorded, then given again), the lines that
work as printed, and text bounded without cutting what a person copies."""

from __future__ import annotations

import argparse

import pytest

from conformance.core.config import UsageError
from conformance.core.redact import REDACTED, redacted_options
from conformance.core.transcript import reproduction_lines
from conformance.replay.options import add_overrides, fill_redacted, merged_values, recorded_values
from conformance.reports.records import CaseOutcome
from conformance.reports.report import RunReport, reproduce_command, shorten


def overrides(*words: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_overrides(parser)
    return parser.parse_args(list(words))


def test_secrets_are_redacted_by_name_and_value_and_nothing_else_is_cut() -> None:
    options = {
        "agent": "python /home/me/agents/loader.py --token sk-abcdefghijklmnop",
        "agent_env": ["LOG_LEVEL=load", "OPENAI_API_KEY=dummy", "MY_FLAG=on"],
        "agent_secret_env": ["BUG=on"],
        "mcp_headers": ["Authorization=Bearer abcdefghijkl"],
    }
    kept = redacted_options(options, ["load", "Bearer abcdefghijkl"])
    assert kept["agent_env"] == ["LOG_LEVEL=load", f"OPENAI_API_KEY={REDACTED}", "MY_FLAG=on"]
    assert kept["agent_secret_env"] == [f"BUG={REDACTED}"]
    assert kept["mcp_headers"] == [f"Authorization={REDACTED}"]
    # a short secret is not looked for inside paths; a key-like string is redacted anywhere
    assert kept["agent"] == f"python /home/me/agents/loader.py --token {REDACTED}"


def test_a_replay_starts_the_agent_with_the_recorded_options_and_the_ones_given_again() -> None:
    recorded = {
        "agent": "python /abs/agent.py",
        "agent_env": ["A=1", "B=2"],
        "agent_timeout": 30.0,
        "report_dir": "reports/x",
        "example_db": "redis://db",
    }
    values = recorded_values(recorded, [], "acp")
    merged = merged_values(values, overrides("--env", "B=3", "--timeout", "5"), "acp")
    assert merged["agent"] == "python /abs/agent.py" and merged["agent_timeout"] == 5.0
    assert merged["agent_env"] == ["A=1", "B=3"]
    assert merged["report_dir"] is None and merged["example_db"] is None  # a replay writes no report
    # --agent names the recorded target's command, whatever the target
    mcp = merged_values(recorded_values({"mcp_cmd": "old"}, [], "mcp"), overrides("--agent", "new"), "mcp")
    assert mcp["mcp_cmd"] == "new"
    # a file that recorded only its command
    assert recorded_values(None, ["python", "a b.py"], "acp")["agent"] == "python 'a b.py'"


def test_a_redacted_value_is_given_again_taken_from_the_environment_or_asked_for(monkeypatch) -> None:
    values = recorded_values({"agent_env": [f"API_KEY={REDACTED}", "X=1"]}, [], "acp")
    monkeypatch.delenv("API_KEY", raising=False)
    with pytest.raises(
        UsageError, match=r"recorded API_KEY with the value redacted; pass it again \(--env API_KEY=…\)"
    ):
        fill_redacted(values, "r.json")
    given = fill_redacted(merged_values(values, overrides("--secret-env", "API_KEY=k"), "acp"), "r.json")
    assert given["agent_env"] == ["X=1"] and given["agent_secret_env"] == ["API_KEY=k"]
    monkeypatch.setenv("API_KEY", "from-the-environment")
    assert fill_redacted(values, "r.json")["agent_env"] == ["X=1"]  # the agent inherits it


SEGMENT = {"connection": "main", "start": "fresh", "lines": ['{"id":1,"method":"initialize"}']}


def test_lines_that_name_the_agents_ids_give_way_to_the_command() -> None:
    command = "session-status-conformance reproduce r/report.json status.x"
    own = [{**SEGMENT, "sessionIds": ["sess_made_by_the_agent"]}]
    shown = reproduction_lines(own, command=command)
    assert shown[0] == f"# run: {command}" and not any("initialize" in line for line in shown)
    theirs = reproduction_lines([{**SEGMENT, "sessionIds": []}], command=command)
    assert theirs == [f"# run: {command}", "# pipe into a fresh agent's stdin:", SEGMENT["lines"][0]]


def test_the_one_command_is_replay_of_a_replay_file_else_reproduce_of_the_report(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert reproduce_command(
        "fuzz.x", {"replay_file": "reports/a b/replays/x.replay.json"}, "reports/a b"
    ) == ("session-status-conformance replay 'reports/a b/replays/x.replay.json'")
    assert reproduce_command("status.y", {}, tmp_path / "reports" / "r") == (
        "session-status-conformance reproduce reports/r/report.json status.y"
    )
    assert reproduce_command("status.y", {}, None) is None


def test_shortening_never_cuts_a_word() -> None:
    path = "reports/my_agent-acp-stdio-20261203/replays/fuzz.frames.survives.replay.json"
    text = f"the agent died (shrunk input, seed 0); replay: session-status-conformance replay {path} and more"
    for limit in range(20, len(text), 7):
        kept = shorten(text, limit).split(" …[")[0]
        assert text.startswith(kept) and text[len(kept)] == " ", (limit, kept)
    assert all(path in shorten(text, n) or "stdio-2026" not in shorten(text, n) for n in range(20, 200))
    assert shorten("x" * 50, 100) == "x" * 50


@pytest.mark.parametrize(
    ("noun", "says"), [("agent", "the agent conforms"), ("server", "the server conforms")]
)
def test_verdicts_use_the_targets_word(noun: str, says: str) -> None:
    report = RunReport(command=["x"], cwd="/", strict=False, timeout=10, noun=noun)
    report.cases = [CaseOutcome.from_json({"id": "c", "level": "MUST", "outcome": "pass"})]
    report.advertised = True
    assert says in report.explanation()


def test_a_fixed_needs_as_many_clean_tries_as_the_rate_it_was_found_at() -> None:
    """The rate is counted with one miss more than seen (3 of 3 is not a certainty), and a failure
    that never failed alone gets no number of tries that could make it FIXED."""
    from conformance.replay.run import CONFIDENCE, MAX_TRIES, plan, tries_needed

    assert tries_needed(3, 3) == 4  # rate 3/4: 0.25 ** 4 < 1 %
    assert tries_needed(2, 3) == 7  # rate 1/2
    assert tries_needed(1, 3) == 17  # rate 1/4
    assert tries_needed(1, 1) == 7  # a case that failed once in its run
    assert tries_needed(1, 100) == MAX_TRIES
    assert tries_needed(0, 3) is None
    for failed, tries in ((3, 3), (2, 3), (1, 3)):
        needed = tries_needed(failed, tries)
        assert needed is not None and (1 - failed / (tries + 1)) ** needed <= 1 - CONFIDENCE
    assert plan({"reproduced": {"failed": 2, "tries": 3, "text": "reproduced alone 2 of 3"}}, None) == (
        7,
        True,
        "reproduced alone 2 of 3",
    )
    assert plan({"reproduced": {"failed": 0, "tries": 6, "text": "0 of 6: only in the full run"}}, None)[
        :2
    ] == (
        3,
        False,
    )
    # a file written before the rate was recorded: its message says whether it ever failed alone
    assert (
        plan({"failure": "not reproducible when replayed alone (flaky or order-dependent)"}, None)[1] is False
    )
    assert plan({"failure": "step 4 list(): changed"}, None)[:2] == (7, True)
    assert plan({"failure": "step 4 list(): changed"}, 2)[0] == 2  # --tries


def test_a_sequence_replays_at_the_pace_it_failed_at() -> None:
    """The times steps ran are read off their first frames; a step removed leaves the others at
    their times; the pace round-trips through a replay file."""
    from conformance.targets.acp.machine import Pace, reproduced_text, step_offsets
    from conformance.targets.acp.sequences import Step

    def step(op: str, t: float | None) -> Step:
        return Step(op, "s0", frames=[{"dir": "send", "t": t, "frame": "{}"}] if t is not None else [])

    steps = [step("unknown", None), step("new", 10.0), step("status", 10.25), step("list", 11.0)]
    assert step_offsets(steps) == (0.0, 0.0, 0.25, 1.0)
    pace = Pace(step_offsets(steps))
    assert pace.without(1, 3).offsets == (0.0, 1.0)
    assert Pace.from_json(pace.to_json()) == pace
    waited = Pace(wait=0.5)
    assert Pace.from_json(waited.to_json()) == waited and Pace.from_json(None) == Pace()
    assert reproduced_text((3, 3), waited) == (
        "reproduced alone 3 of 3, with the agent left alone 0.5 s before the last step"
    )
    assert reproduced_text((0, 6), None) == "0 of 6: only in the full run"

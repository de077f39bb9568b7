"""The pressure cases (cases/acp/pressure.py): twins compared under memory, time, use and a restart,
and the agent's own evictions. Every broken variant gets exactly its outcomes; the reference agent
with each part of its session machinery switched on (conformance/reference/acp/memory.py), told the
matching policy, is conformant with the new cases judged; conforming variants that evict, limit or
queue another way than the reference does must fail nothing.

A variant runs with its agent flags and the suite options that tell its policy, and is judged, as
in test_broken_agents.py, on the cases its difference touches plus every cheap case as the guard.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from tests.conftest import REFERENCE_MODULE, agent_command, guarded, python_command
from tests.targets.acp.test_broken_agents import BASELINE, V2_BASELINE

TWINS_USE = "status.no-side-effects.twins-use"
TWINS_RESTART = "status.no-side-effects.twins-restart"
TWINS_MEMORY = "status.no-side-effects.twins-memory"
TWINS_IDLE = "status.no-side-effects.twins-idle"
MEMORY_EVICTION = "status.inactive.after-memory-eviction"
IDLE_EVICTION = "status.inactive.after-idle-eviction"
MEMORY_CASES = (TWINS_MEMORY, MEMORY_EVICTION)
ONE_STATE = "status.vocabulary.one-revision"
IDLE_CASES = (TWINS_IDLE, IDLE_EVICTION)

# The policy each variant has (its own flags) and the suite is told (the same words).
MEMORY = ("--memory-cap", "4")
IDLE = ("--idle-evict-after", "1")
# The watch of an evicted session is a second long here (the ci profile's is 3 s): what it
# catches comes within a second.
SHORT_HOLD = ("--hold", "1")


@dataclass(frozen=True)
class Variant:
    code: int
    delta: dict[str, str]
    agent_args: tuple[str, ...] = ()  # the agent's own flags
    policy: tuple[str, ...] = ()  # flags both the agent and the suite get (--memory-cap, --idle-evict-after)
    suite_args: tuple[str, ...] = SHORT_HOLD
    protocol: int = 1
    why: str = field(default="", compare=False)

    def baseline(self) -> dict[str, str]:
        found = dict(V2_BASELINE if self.protocol == 2 else BASELINE)
        if "--memory-cap" in self.policy:
            found |= dict.fromkeys(MEMORY_CASES, "pass")
        if "--idle-evict-after" in self.policy:
            found |= dict.fromkeys(IDLE_CASES, "pass")
        return found


# name (the file in tests/agents/acp, then /the configuration where one file runs in several) -> variant
BROKEN: dict[str, Variant] = {
    # Status counts as use: under memory pressure the agent evicts the twins nobody asked about.
    "status_refreshes_lru": Variant(1, {TWINS_MEMORY: "fail"}, policy=MEMORY),
    # The same, only for status calls that overlap: the bursts show it, calls one at a time do not.
    "burst_status_touches": Variant(1, {TWINS_MEMORY: "fail"}, policy=MEMORY),
    "v2_status_refreshes_lru": Variant(1, {TWINS_MEMORY: "fail"}, policy=MEMORY, protocol=2),
    # Status resets the session's idle timer: the polled twins outlive their siblings.
    "status_resets_idle_timer": Variant(1, {TWINS_IDLE: "fail"}, policy=IDLE),
    # Status keeps the whole agent awake: the twins nobody asked about outlive their idle delay.
    "status_keeps_agent_awake": Variant(1, {TWINS_IDLE: "fail"}, policy=IDLE),
    # Status of a session the agent evicted reads it back into memory, at once.
    "status_reloads_evicted/memory": Variant(
        1, {MEMORY_EVICTION: "fail", TWINS_MEMORY: "fail"}, policy=MEMORY
    ),
    "status_reloads_evicted/idle": Variant(1, {IDLE_EVICTION: "fail", TWINS_IDLE: "fail"}, policy=IDLE),
    # ... or 300 ms later, in the background: only the watch over --hold sees it.
    "status_reloads_evicted_later/memory": Variant(1, {MEMORY_EVICTION: "fail"}, policy=MEMORY),
    "status_reloads_evicted_later/idle": Variant(1, {IDLE_EVICTION: "fail"}, policy=IDLE),
    # Status answers from an index the agent's own eviction leaves stale: evicted sessions read active.
    "status_stale_after_eviction/memory": Variant(
        1, {MEMORY_EVICTION: "fail", TWINS_MEMORY: "fail"}, policy=MEMORY
    ),
    "status_stale_after_eviction/idle": Variant(1, {IDLE_EVICTION: "fail", TWINS_IDLE: "fail"}, policy=IDLE),
    # Status of sessions not in memory caches each lookup in the sessions' LRU order: enough of
    # them push held sessions out of memory.
    # A session created while such calls are in flight is pushed out at once, as the overlap case sees.
    "status_lookups_evict": Variant(
        1, {MEMORY_EVICTION: "fail", "status.overlap.answers-by-id": "fail"}, policy=MEMORY
    ),
    # Status of an evicted session peeks at it through the sessions' LRU cache: it makes room
    # for it first, so each such call pushes a held session out of memory.
    "status_peeks_evicted": Variant(1, {MEMORY_EVICTION: "fail"}, policy=MEMORY),
    # Status writes each id it is asked about into an index the agent repairs into sessions when
    # it starts: a never-created id asked about comes back from a restart as a session.
    "status_indexes_unknown_ids": Variant(1, {TWINS_RESTART: "fail"}),
    # Status spends the session's prompt allowance: the polled twin's next prompts are refused.
    "status_spends_allowance": Variant(1, {TWINS_USE: "fail"}, agent_args=("--session-request-limit", "10")),
    # Status writes an unsaved session to disk: only the polled twin survives a restart.
    # (Closed before its first turn, a session is forgotten: the vocabulary case has one state to see.)
    "status_persists_unsaved": Variant(1, {TWINS_RESTART: "fail", ONE_STATE: "n/a"}),
}

CONFORMING: dict[str, Variant] = {
    # The reference, each part of its machinery on, told its policy: every new case judged, passing.
    "reference/memory-cap": Variant(0, {}, policy=MEMORY),
    "reference/idle": Variant(0, {}, policy=IDLE),
    "reference/memory-cap-and-idle": Variant(0, {}, policy=(*MEMORY, *IDLE)),
    # A prompt allowance that status does not spend: both twins are refused alike.
    "reference/request-limit": Variant(0, {TWINS_USE: "pass"}, agent_args=("--session-request-limit", "2")),
    # A slow agent that handles one request at a time: the bursts queue.
    "reference/serialised": Variant(
        0,
        {TWINS_USE: "pass"},
        agent_args=("--serialise", "--request-delay", "0.005"),
        policy=MEMORY,
    ),
    # Storage that takes its time (requests overlap) and refuses what is too long.
    "reference/storage": Variant(
        0, {TWINS_USE: "pass"}, agent_args=("--storage-delay", "0.005", "--max-length", "4096")
    ),
    # Without persistence, an evicted session is gone (-32002), not inactive.
    "reference/in-memory-memory-cap": Variant(
        0,
        {
            **dict.fromkeys(
                [
                    "status.consistency.inactive-resumable",
                    "status.consistency.resume-makes-active",
                    "status.no-side-effects.history-unchanged",
                ],
                "unimplemented",
            ),
            ONE_STATE: "n/a",
        },
        agent_args=("--in-memory",),
        policy=MEMORY,
    ),
    "reference-v2/memory-cap": Variant(0, {}, policy=MEMORY, protocol=2),
    "reference-v2/idle": Variant(0, {}, policy=IDLE, protocol=2),
    # Other eviction orders: newest first, first in first out.
    "newest_first_eviction": Variant(0, {}, policy=MEMORY),
    "fifo_eviction": Variant(0, {}, policy=MEMORY),
    # Idle eviction by a sweep that lags the delay by up to 0.7 s.
    "idle_coarse_sweep": Variant(0, {}, policy=IDLE),
    # Idle sessions evicted only when a request other than status comes in.
    "idle_lazy_sweep": Variant(0, {}, policy=IDLE),
    # One idle timer for the whole agent, which status does not reset.
    "agent_idle": Variant(0, {}, policy=IDLE),
    # Sessions written to disk only after their first turn: a restart loses both twins alike.
    "persist_after_turn": Variant(0, {TWINS_RESTART: "pass", ONE_STATE: "n/a"}),
}

VARIANTS = BROKEN | CONFORMING
# The files in tests/agents/acp these tables run (test_broken_agents.py: every file is listed somewhere).
VARIANT_FILES = {name.partition("/")[0] for name in VARIANTS if not name.startswith("reference")}


def command(name: str, variant: Variant) -> str:
    args = (*variant.agent_args, *variant.policy) + (("--protocol", "2") if variant.protocol == 2 else ())
    if name.startswith("reference"):
        return python_command("-m", REFERENCE_MODULE, *args)
    return agent_command(name.partition("/")[0], *args)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_gets_exactly_its_outcomes(name: str, direct) -> None:
    variant = VARIANTS[name]
    cases, expected = guarded(variant.baseline(), variant.delta)
    # The pressure cases this variant's policy makes testable run whatever the guard says.
    pressure = [c for c in (*MEMORY_CASES, *IDLE_CASES) if variant.baseline()[c] == "pass"]
    cases += [c for c in pressure if c not in cases]
    expected |= {c: (variant.baseline() | variant.delta)[c] for c in pressure}
    args = ["--protocol", "2"] if variant.protocol == 2 else []
    run = direct(*args, *variant.policy, *variant.suite_args, "--agent", command(name, variant), cases=cases)
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == variant.code, run.stderr[-2000:]
    run.assert_explained(variant.delta)
    for case_id in pressure:  # judged, not merely run: the policy was put to use
        assert run.case(case_id)["details"], case_id


def test_every_new_case_is_caught_and_every_pressure_has_a_conforming_variant() -> None:
    caught = {c for v in BROKEN.values() for c, o in v.delta.items() if o == "fail"}
    # (a variant may also fail an older case its bug reaches: status_lookups_evict, answers-by-id)
    assert {TWINS_USE, TWINS_RESTART, TWINS_MEMORY, TWINS_IDLE, MEMORY_EVICTION, IDLE_EVICTION} <= caught
    policies = {"--memory-cap", "--idle-evict-after", "--session-request-limit", "--serialise"}
    shown = {w for v in CONFORMING.values() for w in (*v.policy, *v.agent_args) if w in policies}
    assert shown == policies


def audit_deltas() -> dict[str, dict[str, str]]:
    """What each broken file makes fail or warn over its configurations, as the audit names files."""
    found: dict[str, dict[str, str]] = {}
    for name, variant in BROKEN.items():
        found.setdefault(name.partition("/")[0], {}).update(variant.delta)
    return found


def test_without_the_options_the_pressure_cases_say_what_to_pass(direct) -> None:
    """The reference with a memory cap and idle eviction, the suite told nothing: not testable, and
    the reason names the option (what the report's Coverage shows)."""
    run = direct(
        "--agent", python_command("-m", REFERENCE_MODULE, *MEMORY, *IDLE), cases=[*MEMORY_CASES, *IDLE_CASES]
    )
    assert set(run.outcomes.values()) == {"not-testable"}
    for case_id in MEMORY_CASES:
        assert "pass --memory-cap N" in run.case(case_id)["message"]
    for case_id in IDLE_CASES:
        assert "pass --idle-evict-after S" in run.case(case_id)["message"]


def test_the_thorough_profile_finds_the_policy(direct) -> None:
    """Without the options, the thorough profile's discovery finds the cap and the idle delay
    (--hold bounds the idle discovery), and the cases are judged on what it found."""
    run = direct(
        "--profile",
        "thorough",
        "--hold",
        "3",
        "--agent",
        python_command("-m", REFERENCE_MODULE, "--memory-cap", "5", *IDLE),
        cases=[TWINS_MEMORY, IDLE_EVICTION],
    )
    assert run.outcomes == {TWINS_MEMORY: "pass", IDLE_EVICTION: "pass"}, run.diff({})
    assert "discovery" in str(run.case(TWINS_MEMORY)["details"]["memory_cap"])
    assert "discovery" in str(run.case(IDLE_EVICTION)["details"]["idle_delay"])

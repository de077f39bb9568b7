"""The pressure cases (cases/acp/pressure.py): twins compared under memory, time, use and a restart,
and the agent's own evictions. Every broken variant gets exactly its outcomes; the reference agent
with each part of its session machinery switched on (conformance/reference/acp/memory.py), told the
matching policy, is conformant with the new cases judged; conforming variants that evict, limit or
queue another way than the reference does must fail nothing.

A variant runs with its agent flags and the suite options that tell its policy (a policy is both:
the agent has it, the suite is told it), and is judged, as in test_broken_agents.py, on the cases
its difference touches plus every cheap case as the guard. The pressure cases a policy makes
testable are "pass" entries of its delta (MEMORY_JUDGED, IDLE_JUDGED), unless its bug fails them.
"""

from __future__ import annotations

import pytest

from tests.conftest import REFERENCE_MODULE, Run, agent_command, python_command
from tests.targets.acp.test_broken_agents import BASELINE, V2_BASELINE
from tests.variants import Table, Variant, certify, file_of

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
# A cap that holds one pair of twins at a time (the memory twins swap the roles in the order of use).
SMALL_CAP = ("--memory-cap", "3")
# The watch of an evicted session is a second long here (the ci profile's is 3 s): what it
# catches comes within a second. Every variant here runs with it.
SHORT_HOLD = ("--hold", "1")
# The suite's options of a variant with each policy.
TOLD_MEMORY = (*MEMORY, *SHORT_HOLD)
TOLD_IDLE = (*IDLE, *SHORT_HOLD)
# The pressure cases each policy makes testable (not testable in the baseline): judged, passing.
MEMORY_JUDGED: dict[str, str] = dict.fromkeys(MEMORY_CASES, "pass")
IDLE_JUDGED: dict[str, str] = dict.fromkeys(IDLE_CASES, "pass")


# name (the file in tests/agents/acp, then /the configuration where one file runs in several) -> variant
BROKEN: dict[str, Variant] = {
    # Status counts as use: under memory pressure the agent evicts the twins nobody asked about.
    "status_refreshes_lru": Variant(
        1, {**MEMORY_JUDGED, TWINS_MEMORY: "fail"}, agent_args=MEMORY, args=TOLD_MEMORY
    ),
    # The same under a memory cap of 3: one pair of twins at a time, the roles swapped in the order of use.
    "status_refreshes_lru/cap-3": Variant(
        1, {**MEMORY_JUDGED, TWINS_MEMORY: "fail"}, agent_args=SMALL_CAP, args=(*SMALL_CAP, *SHORT_HOLD)
    ),
    # The same, only for status calls that overlap: the bursts show it, calls one at a time do not.
    "burst_status_touches": Variant(
        1, {**MEMORY_JUDGED, TWINS_MEMORY: "fail"}, agent_args=MEMORY, args=TOLD_MEMORY
    ),
    # Status resets the session's idle timer: the polled twins outlive their siblings.
    "status_resets_idle_timer": Variant(
        1, {**IDLE_JUDGED, TWINS_IDLE: "fail"}, agent_args=IDLE, args=TOLD_IDLE
    ),
    # Status keeps the whole agent awake: the twins nobody asked about outlive their idle delay.
    "status_keeps_agent_awake": Variant(
        1, {**IDLE_JUDGED, TWINS_IDLE: "fail"}, agent_args=IDLE, args=TOLD_IDLE
    ),
    # Status of a session the agent evicted reads it back into memory, at once.
    "status_reloads_evicted/memory": Variant(
        1, {MEMORY_EVICTION: "fail", TWINS_MEMORY: "fail"}, agent_args=MEMORY, args=TOLD_MEMORY
    ),
    "status_reloads_evicted/idle": Variant(
        1, {IDLE_EVICTION: "fail", TWINS_IDLE: "fail"}, agent_args=IDLE, args=TOLD_IDLE
    ),
    # ... or 300 ms later, in the background: only the watch over --hold sees it.
    "status_reloads_evicted_later/memory": Variant(
        1, {**MEMORY_JUDGED, MEMORY_EVICTION: "fail"}, agent_args=MEMORY, args=TOLD_MEMORY
    ),
    # twins-idle: its last status calls fall past the delay, and the reload lands before the twins are read.
    "status_reloads_evicted_later/idle": Variant(
        1, {**IDLE_JUDGED, IDLE_EVICTION: "fail", TWINS_IDLE: "fail"}, agent_args=IDLE, args=TOLD_IDLE
    ),
    # Status answers from an index the agent's own eviction leaves stale: evicted sessions read active.
    "status_stale_after_eviction/memory": Variant(
        1, {MEMORY_EVICTION: "fail", TWINS_MEMORY: "fail"}, agent_args=MEMORY, args=TOLD_MEMORY
    ),
    "status_stale_after_eviction/idle": Variant(
        1, {IDLE_EVICTION: "fail", TWINS_IDLE: "fail"}, agent_args=IDLE, args=TOLD_IDLE
    ),
    # Status reads a session inactive once its idle delay has passed since its last use, a turn in
    # progress (its last use the prompt) too: a turn held beside the idle calibration shows it.
    "status_predicts_idle_eviction": Variant(
        1,
        {**IDLE_JUDGED, IDLE_EVICTION: "fail"},
        agent_args=IDLE,
        args=TOLD_IDLE,
        rule=(IDLE_EVICTION, "turn-in-memory"),
    ),
    # Status of sessions not in memory caches each lookup in the sessions' LRU order: enough of
    # them push held sessions out of memory.
    # A session created while such calls are in flight is pushed out at once, as the overlap case sees.
    "status_lookups_evict": Variant(
        1,
        {**MEMORY_JUDGED, MEMORY_EVICTION: "fail", "status.overlap.answers-by-id": "fail"},
        agent_args=MEMORY,
        args=TOLD_MEMORY,
    ),
    # Status of an evicted session peeks at it through the sessions' LRU cache: it makes room
    # for it first, so each such call pushes a held session out of memory.
    "status_peeks_evicted": Variant(
        1, {**MEMORY_JUDGED, MEMORY_EVICTION: "fail"}, agent_args=MEMORY, args=TOLD_MEMORY
    ),
    # Status writes each id it is asked about into an index the agent repairs into sessions when
    # it starts: a never-created id asked about comes back from a restart as a session.
    "status_indexes_unknown_ids": Variant(1, {TWINS_RESTART: "fail"}, args=SHORT_HOLD),
    # Status spends the session's prompt allowance: the polled twin's next prompts are refused.
    "status_spends_allowance": Variant(
        1, {TWINS_USE: "fail"}, agent_args=("--session-request-limit", "10"), args=SHORT_HOLD
    ),
    # Status writes an unsaved session to disk: only the polled twin survives a restart.
    # (Closed before its first turn, a session is forgotten: the vocabulary case has one state to see.)
    "status_persists_unsaved": Variant(1, {TWINS_RESTART: "fail", ONE_STATE: "n/a"}, args=SHORT_HOLD),
}

CONFORMING: dict[str, Variant] = {
    # The reference, each part of its machinery on, told its policy: every new case judged, passing.
    "reference/memory-cap": Variant(0, MEMORY_JUDGED, agent_args=MEMORY, args=TOLD_MEMORY),
    "reference/idle": Variant(0, IDLE_JUDGED, agent_args=IDLE, args=TOLD_IDLE),
    # Caps that hold one pair of twins at a time, or not even that: judged, passing.
    "reference/memory-cap-1": Variant(
        0, MEMORY_JUDGED, agent_args=("--memory-cap", "1"), args=("--memory-cap", "1", *SHORT_HOLD)
    ),
    "reference/memory-cap-2": Variant(
        0, MEMORY_JUDGED, agent_args=("--memory-cap", "2"), args=("--memory-cap", "2", *SHORT_HOLD)
    ),
    "reference/memory-cap-and-idle": Variant(
        0, {**MEMORY_JUDGED, **IDLE_JUDGED}, agent_args=(*MEMORY, *IDLE), args=(*MEMORY, *IDLE, *SHORT_HOLD)
    ),
    # A prompt allowance that status does not spend: both twins are refused alike.
    "reference/request-limit": Variant(
        0, {TWINS_USE: "pass"}, agent_args=("--session-request-limit", "2"), args=SHORT_HOLD
    ),
    # A slow agent that handles one request at a time: the bursts queue.
    "reference/serialised": Variant(
        0,
        {**MEMORY_JUDGED, TWINS_USE: "pass"},
        agent_args=("--serialise", "--request-delay", "0.005", *MEMORY),
        args=TOLD_MEMORY,
    ),
    # Storage that takes its time (requests overlap) and refuses what is too long.
    "reference/storage": Variant(
        0,
        {TWINS_USE: "pass"},
        agent_args=("--storage-delay", "0.005", "--max-length", "4096"),
        args=SHORT_HOLD,
    ),
    # Without persistence, an evicted session is gone (-32002), not inactive.
    "reference/in-memory-memory-cap": Variant(
        0,
        {
            **MEMORY_JUDGED,
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
        agent_args=("--in-memory", *MEMORY),
        args=TOLD_MEMORY,
    ),
    # Other eviction orders: newest first, first in first out.
    "newest_first_eviction": Variant(0, MEMORY_JUDGED, agent_args=MEMORY, args=TOLD_MEMORY),
    "fifo_eviction": Variant(0, MEMORY_JUDGED, agent_args=MEMORY, args=TOLD_MEMORY),
    # At random (seeded): its two calibration rounds evict different twins, so the twins case says it
    # cannot tell; its own evictions still read inactive.
    "random_eviction": Variant(
        0, {**MEMORY_JUDGED, TWINS_MEMORY: "not-testable"}, agent_args=MEMORY, args=TOLD_MEMORY
    ),
    # Idle eviction by a sweep that lags the delay by up to 0.7 s.
    "idle_coarse_sweep": Variant(0, IDLE_JUDGED, agent_args=IDLE, args=TOLD_IDLE),
    # Idle sessions evicted only when a request other than status comes in.
    "idle_lazy_sweep": Variant(0, IDLE_JUDGED, agent_args=IDLE, args=TOLD_IDLE),
    # One idle timer for the whole agent, which status does not reset.
    "agent_idle": Variant(0, IDLE_JUDGED, agent_args=IDLE, args=TOLD_IDLE),
    # Sessions written to disk only after their first turn: a restart loses both twins alike.
    "persist_after_turn": Variant(0, {TWINS_RESTART: "pass", ONE_STATE: "n/a"}, args=SHORT_HOLD),
}

# The same under ACP v2 (--protocol 2, the agent's and the suite's), on the v2 reference's outcomes.
V2_BROKEN: dict[str, Variant] = {
    "v2_status_refreshes_lru": Variant(
        1, {**MEMORY_JUDGED, TWINS_MEMORY: "fail"}, agent_args=MEMORY, args=TOLD_MEMORY
    ),
}
V2_CONFORMING: dict[str, Variant] = {
    "reference-v2/memory-cap": Variant(0, MEMORY_JUDGED, agent_args=MEMORY, args=TOLD_MEMORY),
    "reference-v2/idle": Variant(0, IDLE_JUDGED, agent_args=IDLE, args=TOLD_IDLE),
}


# The generated sequences' twins (conformance/targets/acp/sequences.py): every lifecycle step on both
# twins of a pair, status on one, their answers compared and a difference confirmed with the roles
# swapped. Only the sequence case runs.
SEQ = "sequence.status.model-based"
SEQUENCE_BROKEN: dict[str, Variant] = {
    # Many status calls, then both twins prompted: the asked twin's prompt is refused.
    "status_spends_allowance/sequence": Variant(
        1,
        {SEQ: "fail"},
        focus="model-based",
        agent_args=("--session-request-limit", "10"),
        rule=(SEQ, "twins-differ"),
    ),
    # Status calls about one twin, then memory pressure: the twin nobody asked about is evicted.
    "status_refreshes_lru/sequence": Variant(
        1,
        {SEQ: "fail"},
        focus="model-based",
        agent_args=SMALL_CAP,
        args=SMALL_CAP,
        rule=(SEQ, "twins-differ"),
    ),
}
# The rest of the surface (--surface: modes, a config option, `_session/rename`; session/delete is
# the reference's own): status about one twin changes what a setting, a delete or an extension
# method then does on it. Each is found by a scenario of the surface, whatever the seed.
SURFACE = ("--surface",)
SURFACE_BROKEN = Variant(
    1, {SEQ: "fail"}, focus="model-based", agent_args=SURFACE, rule=(SEQ, "twins-differ")
)
SEQUENCE_BROKEN |= {
    # A mode set on both twins, status about one: a resume reports it as set for the other only.
    "status_resets_mode": SURFACE_BROKEN,
    # Status about one twin, then a config option set on both: refused for the asked twin only.
    "status_locks_config": SURFACE_BROKEN,
    # Status calls in flight together about one twin, then both deleted: refused as in use for the
    # asked twin only (one call at a time never shows it).
    "status_blocks_delete": Variant(1, {SEQ: "fail"}, focus="model-based", rule=(SEQ, "twins-differ")),
    # Both renamed by the extension method, status about one: listed without its title.
    "status_reindexes_listing": SURFACE_BROKEN,
    # The unstable session methods (the class offers them): a fork unknown to status until its
    # first turn; an archived session unknown to status, though unarchive finds it.
    "fork_unregistered": Variant(1, {SEQ: "fail"}, focus="model-based", rule=(SEQ, "fork-known")),
    "archived_unknown": Variant(1, {SEQ: "fail"}, focus="model-based", rule=(SEQ, "unknown-not-found")),
}
SEQUENCE_CONFORMING: dict[str, Variant] = {
    # Modes, a config option and an extension method that retitles the session it is called on (on
    # both twins alike): nothing is laid at status's door, under --strict too.
    "reference/sequence-surface": Variant(0, focus="model-based", agent_args=SURFACE, args=("--strict",)),
    # Each session starts in a mode of its own: only the modes the client set are compared.
    "modes_default_per_session": Variant(0, focus="model-based", agent_args=SURFACE, args=("--strict",)),
    # Resume and load refused for an archived session until it is unarchived (clients SHOULD
    # unarchive first), and set_title loads the session it retitles.
    "archived_needs_unarchive": Variant(0, focus="model-based", args=("--strict",)),
    # No optional method advertised at all: the sequences run on new, prompt, cancel and status.
    "bare_surface": Variant(0, focus="model-based", args=("--strict",)),
    # Twins evicted by their places (least recently used, first in first out) and refused alike by
    # an allowance status does not spend: no difference is laid at status's door.
    "reference/sequence-memory-cap-3": Variant(0, focus="model-based", agent_args=SMALL_CAP, args=SMALL_CAP),
    # A cap of 1: every new session evicts the last, twins never in memory together.
    "reference/sequence-memory-cap-1": Variant(
        0, focus="model-based", agent_args=("--memory-cap", "1"), args=("--memory-cap", "1")
    ),
    "fifo_eviction/sequence": Variant(0, focus="model-based", agent_args=SMALL_CAP, args=SMALL_CAP),
    "reference/sequence-request-limit": Variant(
        0, focus="model-based", agent_args=("--session-request-limit", "2")
    ),
}


def agent(name: str, *args: str) -> str:
    """The command of variant NAME: a file of tests/agents/acp, or the reference (reference…/…)."""
    if name.startswith("reference"):
        return python_command("-m", REFERENCE_MODULE, *args)
    return agent_command(file_of(name), *args)


def in_v1(name: str, variant: Variant) -> tuple[str, ...]:
    return ("--agent", agent(name, *variant.agent_args))


def in_v2(name: str, variant: Variant) -> tuple[str, ...]:
    return ("--protocol", "2", "--agent", agent(name, *variant.agent_args, "--protocol", "2"))


def judged(run: Run, name: str, variant: Variant) -> None:
    """The pressure cases the variant's policy makes testable were judged, not merely run: the
    policy was put to use."""
    for flag, pressure in (("--memory-cap", MEMORY_CASES), ("--idle-evict-after", IDLE_CASES)):
        if flag in variant.args:
            for case_id in pressure:
                assert run.case(case_id)["details"], case_id


TABLES = [
    Table("acp", BASELINE, in_v1, BROKEN, check=judged),
    Table("acp", BASELINE, in_v1, CONFORMING, conforming=True, check=judged),
    Table("acp", V2_BASELINE, in_v2, V2_BROKEN, check=judged),
    Table("acp", V2_BASELINE, in_v2, V2_CONFORMING, conforming=True, check=judged),
    Table("acp", BASELINE, in_v1, SEQUENCE_BROKEN),
    Table("acp", BASELINE, in_v1, SEQUENCE_CONFORMING, conforming=True, whole_focus=True),
]
TABLE_OF = {name: table for table in TABLES for name in table.variants}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TABLE_OF))
def test_variant_gets_exactly_its_outcomes(name: str, direct) -> None:
    certify(direct, TABLE_OF[name], name)


def test_every_new_case_is_caught_and_every_pressure_has_a_conforming_variant() -> None:
    caught = {c for v in (BROKEN | V2_BROKEN).values() for c, o in v.delta.items() if o == "fail"}
    # (a variant may also fail an older case its bug reaches: status_lookups_evict, answers-by-id)
    assert {TWINS_USE, TWINS_RESTART, TWINS_MEMORY, TWINS_IDLE, MEMORY_EVICTION, IDLE_EVICTION} <= caught
    policies = {"--memory-cap", "--idle-evict-after", "--session-request-limit", "--serialise"}
    shown = {w for v in (CONFORMING | V2_CONFORMING).values() for w in v.agent_args if w in policies}
    assert shown == policies


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

"""The HTTP target: the reference service is certified, every `http.*` case is shown to fail by a
broken variant in tests/agents/http built for it (with the consequences its bug has on the cases
it can touch, listed here so nothing else there may differ), every conforming variant that defeats
an assumption a probe could make passes, and the probes' judgement is tested on data."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator

import httpx
import pytest
from _pytest.mark.expression import Expression
from conformance.cases.http.status import Unknown404

from conformance import cases
from conformance.core.registry import CASES
from conformance.targets.http.agentscope import segment
from conformance.targets.http.calibration import differing, flatten, parts_of, shaped_like
from conformance.targets.http.target import StatusProbe, find_entry
from conformance.targets.http.twins import Fate, Twin, disagreement, fate_of, judge, tail_of
from tests.conftest import AGENTS, ROOT, guarded, listening, python_command
from tests.unit.test_audit import check_variants_catch, expected_by_variant

cases.load_all()

HTTP_AGENTS = AGENTS / "http"
HTTP_CASES = sorted(c for c in CASES if CASES[c].target == "http")
# The reference without the options that state a policy it does not have (an idle eviction, a
# memory cap) and without a store that outlives a restart: those twins are not testable.
NOT_STATED = dict.fromkeys(
    ["http.twins.idle-eviction", "http.twins.memory-cap", "http.twins.restart"], "not-testable"
)
BASELINE = dict.fromkeys(HTTP_CASES, "pass") | NOT_STATED
# States are reached in well under a second here; a short --timeout keeps waiting for a state a
# broken service never reaches brief.
# Waits for a state the variant never reaches end at --timeout; replies take milliseconds.
FAST = ("--timeout", "2")
HIDDEN_EVERYWHERE = {
    "http.ownership.while-running": "fail",
    "http.ownership.while-parked": "fail",
    "http.ownership.while-external": "fail",
}
OWNERSHIP = "ownership or isolation or identity or parallel"

# variant file in tests/agents/http -> (exit code, outcomes that differ from BASELINE in its FOCUS)
BROKEN: dict[str, tuple[int, dict[str, str]]] = {
    # 403 to another user: every check that asks as another user (and "ALICE" is another user).
    "forbidden_other_user": (
        1,
        {
            "http.ownership.other-user-404": "fail",
            "http.ownership.same-body": "fail",
            "http.isolation.after-owner-probe": "fail",
            "http.identity.user-id-variants": "fail",
            "http.concurrency.parallel-probes": "fail",
        }
        | HIDDEN_EVERYWHERE,
    ),
    "telling_404_body": (
        1,
        {"http.ownership.same-body": "fail", "http.isolation.after-owner-probe": "fail"} | HIDDEN_EVERYWHERE,
    ),
    # The same, with a fresh request id in every 404: only the field the telling answers add shows it.
    "noisy_telling_404": (
        1,
        {"http.ownership.same-body": "fail", "http.isolation.after-owner-probe": "fail"} | HIDDEN_EVERYWHERE,
    ),
    # Only a real agent of the caller's, other than the session's, shows it.
    "agent_check_by_owner": (1, {"http.ownership.wrong-agent-404": "fail"}),
    "ignores_agent_id": (
        1,
        {
            "http.ownership.wrong-agent-404": "fail",
            "http.isolation.after-owner-probe": "fail",
            "http.identity.agent-id-variants": "fail",
            "http.types.odd-values": "fail",
        }
        | HIDDEN_EVERYWHERE,
    ),
    # An empty 200 for any session nobody has (never created, odd, deleted, another form): the
    # unknown-session answer others are compared with is wrong too. Probing creates nothing, so
    # http.safe.no-side-effects passes (its messages stay 404).
    "empty_200_unknown": (
        1,
        {
            "http.unknown.not-found": "fail",
            "http.ownership.same-body": "fail",
            "http.isolation.after-owner-probe": "fail",
            "http.identity.session-id-variants": "fail",
            "http.fuzz.session-id-forms": "fail",
            "http.types.odd-values": "fail",
            "http.later.deleted": "fail",
        }
        | HIDDEN_EVERYWHERE,
    ),
    # Probing an unknown id creates it: the id variants and the odd ids too, and a deleted session
    # comes back.
    "status_creates_session": (
        1,
        {
            "http.unknown.not-found": "fail",
            "http.safe.no-side-effects": "fail",
            "http.identity.session-id-variants": "fail",
            "http.fuzz.session-id-forms": "fail",
            "http.types.odd-values": "fail",
            "http.later.deleted": "fail",
        },
    ),
    # The lease outlives the run, so no session that ran is ever anything but running again (the
    # later cases and the other parked ones fail the same way: not run here).
    "lease_never_released": (
        1,
        {
            "http.state.idle-after-run": "fail",
            "http.state.awaiting-permission": "fail",
            "http.state.awaiting-external": "fail",
            "http.ownership.while-parked": "fail",
        },
    ),
    "precedence_inverted": (
        1,
        {"http.state.running-during-run": "fail", "http.ownership.while-running": "fail"},
    ),
    "parked_as_idle": (1, {"http.state.awaiting-permission": "fail", "http.ownership.while-parked": "fail"}),
    "external_as_permission": (1, {"http.state.awaiting-external": "fail"}),
    "unknown_status_word": (
        1,
        {
            "http.status.known-value": "fail",
            "http.state.awaiting-permission": "fail",
            "http.ownership.while-parked": "fail",
        },
    ),
    # "queued" while a run waits for its worker: a word only a probe during that wait sees.
    "queued_word": (1, {"http.status.known-value": "fail"}),
    "wrong_session_echo": (1, {"http.status.shape": "fail"}),
    "status_as_html": (1, {"http.status.shape": "fail"}),
    "new_session_not_idle": (1, {"http.state.idle-fresh": "fail"}),
    "missing_agent_400": (1, {"http.validation.missing-agent-id": "fail"}),
    "missing_user_detail_text": (1, {"http.validation.missing-user-id": "fail"}),
    "validation_error_as_text": (
        1,
        {"http.validation.missing-agent-id": "fail", "http.validation.missing-user-id": "fail"},
    ),
    # A probe holds the lease for 2 s: the probe after it reads running, and a run cannot start.
    "probe_takes_lease": (
        1,
        {
            "http.safe.no-lease": "fail",
            "http.safe.no-side-effects": "fail",
            "http.concurrency.parallel-probes": "fail",
        },
    ),
    "probe_touches_session": (
        1,
        {"http.safe.no-side-effects": "fail", "http.safe.parked-stays-parked": "fail"},
    ),
    # The same, with every chat input applied 0.5 s after POST /chat/ answers.
    "probe_touches_late_writes": (
        1,
        {"http.safe.no-side-effects": "fail", "http.safe.parked-stays-parked": "fail"},
    ),
    "running_ignores_owner": (1, {"http.ownership.while-running": "fail"}),
    "parked_ignores_owner": (
        1,
        {"http.ownership.while-parked": "fail", "http.ownership.while-external": "fail"},
    ),
    # -- the requirement audit's ways, each caught by the check it names --------------------------
    # The generated forms include the scripted ones' kinds (case, prefix), so they catch these too.
    "case_insensitive_ids": (
        1,
        {"http.identity.session-id-variants": "fail", "http.fuzz.session-id-forms": "fail"},
    ),
    "prefix_match_ids": (
        1,
        {"http.identity.session-id-variants": "fail", "http.fuzz.session-id-forms": "fail"},
    ),
    # NFKC on the status route only: no scripted form shows it (they are their own NFKC forms).
    "status_id_nfkc": (1, {"http.fuzz.session-id-forms": "fail"}),
    "owner_case_insensitive": (1, {"http.identity.user-id-variants": "fail"}),
    "agent_case_insensitive": (1, {"http.identity.agent-id-variants": "fail"}),
    "long_id_500": (1, {"http.types.odd-values": "fail"}),
    "empty_user_skips_owner": (1, {"http.types.odd-values": "fail"}),
    "empty_agent_skips_check": (1, {"http.types.odd-values": "fail"}),
    "parked_flag_never_cleared": (1, {"http.later.permission-answered": "fail"}),
    "denied_still_waiting": (1, {"http.later.permission-answered": "fail"}),
    "external_flag_never_cleared": (1, {"http.later.external-answered": "fail"}),
    "cached_status_after_delete": (1, {"http.later.deleted": "fail"}),
    "deleted_run_keeps_lease": (1, {"http.later.deleted": "fail"}),
    # The same bug behind a DELETE that takes effect after the run's model call: unobservable.
    "slow_delete_keeps_lease": (0, {"http.later.deleted": "not-testable"}),
    # Cached under the session id alone: probes sent together after the owner's are answered from it too.
    "cached_idle_any_caller": (
        1,
        {"http.isolation.after-owner-probe": "fail", "http.concurrency.parallel-probes": "fail"},
    ),
    "external_ignores_owner": (1, {"http.ownership.while-external": "fail"}),
    "probe_expires_permission": (1, {"http.safe.parked-stays-parked": "fail"}),
    "probe_single_flight": (1, {"http.concurrency.parallel-probes": "fail"}),
    "caller_in_global": (1, {"http.concurrency.parallel-probes": "fail"}),
    "probe_renews_lease": (1, {"http.state.idle-after-run": "fail"}),
    "lease_expires_mid_run": (1, {"http.state.running-outlives-lease": "fail"}),
    "thinking_block_parks": (1, {"http.state.parked-only-by-tool-calls": "fail"}),
    "thinking_block_parks_queued": (1, {"http.state.parked-only-by-tool-calls": "fail"}),
    # -- bugs that show later, under pressure, with overlapping calls, at boundaries, via a neighbour --
    # Twins: each with the suite option that states the service's policy (EXTRA).
    "status_resets_idle_timer": (1, {"http.twins.idle-eviction": "fail"}),
    "status_revives_evicted": (1, {"http.twins.idle-eviction": "fail"}),
    "status_keeps_user_alive": (1, {"http.twins.idle-eviction": "fail"}),
    "status_counts_as_use": (1, {"http.twins.memory-cap": "fail"}),
    "status_spends_allowance": (1, {"http.twins.request-allowance": "fail"}),
    "status_marks_active": (1, {"http.twins.restart": "fail"}),
    # The parked state lives in memory only: forgotten once the session is evicted (2 s idle).
    "parked_state_in_memory": (1, {"http.later.states-hold": "fail", "http.twins.idle-eviction": "fail"}),
    "parked_forgotten_after_2s": (1, {"http.later.states-hold": "fail"}),
    "external_forgotten_after_2s": (1, {"http.later.states-hold": "fail"}),
    "stale_park_reapplied": (1, {"http.later.states-hold": "fail"}),
    "running_keyed_by_user": (1, {"http.neighbour.siblings": "fail"}),
    "parked_from_latest_reply": (1, {"http.neighbour.siblings": "fail"}),
    "crossed_status_slot": (1, {"http.neighbour.siblings": "fail"}),
    "status_during_chat_500": (1, {"http.concurrency.races": "fail"}),
    "delete_race_500": (1, {"http.concurrency.races": "fail"}),
    "status_saves_stale_copy": (1, {"http.concurrency.races": "fail"}),
    # A probe sent while the run works, answered once it has ended: evidence, not "not testable".
    "status_waits_for_run": (
        1,
        {"http.state.running-during-run": "fail", "http.ownership.while-running": "fail"},
    ),
    "user_ids_cut_at_64": (1, {"http.boundary.id-lengths": "fail"}),
    "ids_cut_at_32": (1, {"http.boundary.id-lengths": "fail"}),
    # Cut on the status route only: its agent_id with a trailing space (cut off) shows it too.
    "agent_ids_cut_at_32": (
        1,
        {"http.boundary.id-lengths": "fail", "http.identity.agent-id-variants": "fail"},
    ),
    "long_ids_cut_at_64": (1, {"http.boundary.id-lengths": "fail"}),
    "path_decoded_twice": (1, {"http.boundary.encodings": "fail"}),
    "user_header_decoded": (1, {"http.boundary.encodings": "fail"}),
    "dot_segments_resolved": (1, {"http.boundary.encodings": "fail"}),
    "user_nfc_status_only": (1, {"http.boundary.encodings": "fail"}),
}
# Services that defeat an assumption a probe could make (ids are free-form, every character of an
# id is free, 404 bodies are equal, a view read twice is the same, the listing has AgentScope's
# layout, runs stream and start at once or at least within --timeout, the model's call parks the
# turn, ids and users compare exactly, alike on every route, a 422 carries a detail naming the field
# as sent, DELETE takes a running session, POST /chat/ starts runs and takes answers, a dot segment
# reaches the route): none may fail a case.
CONFORMING: dict[str, tuple[int, dict[str, str]]] = {
    "clock_fields": (0, {}),
    "listing_other_layout": (0, {}),
    "request_id_in_404": (0, {}),
    "timestamp_in_404": (0, {}),
    "hex_ids_validated": (0, {}),
    "unstreamed_model": (0, {}),
    "queued_runs": (0, {}),
    "case_insensitive_everywhere": (0, {}),
    "users_case_insensitive": (0, {}),
    "uuid4_ids_validated": (0, {}),
    "missing_user_422_other_body": (0, {}),
    "header_loc_capitalised": (0, {}),
    "dot_segment_redirect": (0, {}),
    "lenient_messages": (0, {}),
    # DELETE refused while a run holds the lease: no deleted running session to probe.
    "delete_refuses_running": (0, {"http.later.deleted": "not-testable"}),
    # The answering route refuses every answer, on a session no probe asked too.
    "confirm_elsewhere": (
        0,
        dict.fromkeys(["http.later.permission-answered", "http.safe.parked-stays-parked"], "not-testable"),
    ),
    # No run ever starts: every case that needs one is not testable.
    "chats_refused": (
        0,
        dict.fromkeys(
            [
                "http.state.running-during-run",
                "http.state.idle-after-run",
                "http.state.awaiting-permission",
                "http.state.awaiting-external",
                "http.state.parked-only-by-tool-calls",
                "http.ownership.while-running",
                "http.ownership.while-parked",
                "http.ownership.while-external",
                "http.later.permission-answered",
                "http.later.external-answered",
                "http.later.deleted",
                "http.safe.no-lease",
                "http.safe.parked-stays-parked",
                "http.later.states-hold",
            ],
            "not-testable",
        ),
    ),
    # Runs picked up after --timeout: nothing a working run shows can be judged.
    "runs_start_after_timeout": (
        0,
        dict.fromkeys(
            ["http.state.running-during-run", "http.state.idle-after-run", "http.ownership.while-running"],
            "not-testable",
        ),
    ),
    # No turn ever waits for permission: what needs one is not testable, never failed.
    "no_permission_asked": (
        0,
        dict.fromkeys(
            [
                "http.state.awaiting-permission",
                "http.ownership.while-parked",
                "http.later.permission-answered",
                "http.safe.parked-stays-parked",
            ],
            "not-testable",
        ),
    ),
    # A client-sent assistant message is refused: the case that needs one is not testable.
    "assistant_input_refused": (0, {"http.state.parked-only-by-tool-calls": "not-testable"}),
    # The answered turn resumes after --timeout, and the status truly reads the context that still
    # holds the call: no run resumed, nothing to judge.
    "late_resume": (
        0,
        dict.fromkeys(["http.later.permission-answered", "http.later.external-answered"], "not-testable"),
    ),
    # Sessions evicted for good (404 everywhere) by an honest policy the status does not feed.
    "honest_lru_eviction": (0, {"http.twins.memory-cap": "pass"}),
    "honest_ttl_eviction": (0, {"http.twins.idle-eviction": "pass"}),
    "slow_serialised": (0, {}),
    # The service gives an unanswered permission request up after 2 s: the hold ends there.
    "gives_up_parked_after_2s": (0, {}),
    "users_normalised_everywhere": (0, {}),
}
# The cases a variant can touch (-k): the rest would only repeat the reference's passes. The
# exact-outcomes check holds over the selection. Variants not named here run every case.
FOCUS: dict[str, str] = {
    "forbidden_other_user": OWNERSHIP,
    "telling_404_body": OWNERSHIP,
    "ignores_agent_id": OWNERSHIP,
    "agent_check_by_owner": OWNERSHIP,
    "empty_200_unknown": f"unknown or side-effects or deleted or {OWNERSHIP}",
    "status_creates_session": f"unknown or side-effects or deleted or {OWNERSHIP}",
    "lease_never_released": "idle-after-run or awaiting-permission or awaiting-external or while-parked",
    "precedence_inverted": "running-during-run or while-running",
    "parked_as_idle": "awaiting-permission or while-parked",
    "external_as_permission": "awaiting-external",
    "unknown_status_word": "known-value or awaiting-permission or while-parked",
    "wrong_session_echo": "shape",
    "new_session_not_idle": "idle",
    "missing_agent_400": "validation",
    "missing_user_detail_text": "validation",
    "validation_error_as_text": "validation",
    "missing_user_422_other_body": "validation",
    "header_loc_capitalised": "validation",
    "status_as_html": "shape",
    "queued_word": "known-value",
    "noisy_telling_404": OWNERSHIP,
    "uuid4_ids_validated": f"unknown or side-effects or deleted or {OWNERSHIP}",
    "dot_segment_redirect": "odd-values",
    "lenient_messages": "identity",
    # A MUST that passes beside the not-testable ones: a run whose every MUST is not testable has
    # no verdict to compare.
    "delete_refuses_running": "deleted or shape",
    "runs_start_after_timeout": "running-during-run or idle or while-running",
    "confirm_elsewhere": "permission-answered or parked-stays or shape",
    # Without --http-long-run that case is not testable for the reference too.
    "chats_refused": "(states or later or no-lease or parked-stays or known-value) and not outlives",
    "probe_takes_lease": "no-lease or side-effects or known-value or parallel",
    "probe_touches_session": "safe",
    "probe_touches_late_writes": "safe",
    "running_ignores_owner": OWNERSHIP,
    "parked_ignores_owner": OWNERSHIP,
    "case_insensitive_ids": "identity",
    "prefix_match_ids": "identity",
    "status_id_nfkc": "identity",
    "owner_case_insensitive": "identity",
    "agent_case_insensitive": "identity",
    "long_id_500": "identity",
    "empty_user_skips_owner": "identity",
    "empty_agent_skips_check": "identity",
    "parked_flag_never_cleared": "permission-answered",
    "denied_still_waiting": "permission-answered",
    "external_flag_never_cleared": "external-answered",
    "cached_status_after_delete": "deleted or isolation",
    "deleted_run_keeps_lease": "deleted or isolation",
    "slow_delete_keeps_lease": "deleted or shape",
    "cached_idle_any_caller": OWNERSHIP,
    "external_ignores_owner": OWNERSHIP,
    "probe_expires_permission": "parked-stays",
    "probe_single_flight": "parallel or isolation",
    "caller_in_global": "parallel or isolation",
    "probe_renews_lease": "idle-after-run or running-during-run",
    "lease_expires_mid_run": "running",
    "thinking_block_parks": "parked or awaiting",
    "thinking_block_parks_queued": "parked-only",
    "assistant_input_refused": "parked or awaiting",
    "clock_fields": "side-effects or parked-stays",
    "listing_other_layout": "side-effects or parked-stays",
    "request_id_in_404": OWNERSHIP,
    "timestamp_in_404": OWNERSHIP,
    "hex_ids_validated": f"unknown or side-effects or {OWNERSHIP}",
    "unstreamed_model": "running-during-run or while-running",
    "queued_runs": "running-during-run or while-running",
    "case_insensitive_everywhere": "identity",
    "users_case_insensitive": OWNERSHIP,
    "no_permission_asked": "permission or parked",
    "late_resume": "answered or parked or awaiting",
    "status_resets_idle_timer": "twins",
    "status_revives_evicted": "twins",
    "status_keeps_user_alive": "twins",
    "status_counts_as_use": "twins",
    "status_spends_allowance": "twins",
    "status_marks_active": "twins",
    "parked_state_in_memory": "states-hold or twins",
    "parked_forgotten_after_2s": "states-hold or awaiting or parked",
    "external_forgotten_after_2s": "states-hold or awaiting-external",
    "stale_park_reapplied": "states-hold or permission",
    "running_keyed_by_user": "siblings or running",
    "parked_from_latest_reply": "siblings or awaiting",
    "crossed_status_slot": "siblings or parallel",
    "status_during_chat_500": "races or no-lease",
    "delete_race_500": "races or deleted",
    "status_saves_stale_copy": "races or permission-answered or parked-stays",
    "status_waits_for_run": "running-during-run or while-running or deleted",
    "user_ids_cut_at_64": "boundary or identity",
    "ids_cut_at_32": "boundary or identity",
    "agent_ids_cut_at_32": "boundary or identity",
    "long_ids_cut_at_64": "boundary or identity",
    "path_decoded_twice": "boundary or identity",
    "user_header_decoded": "boundary or identity",
    "dot_segments_resolved": "boundary or odd-values",
    "user_nfc_status_only": "boundary or identity",
    "honest_lru_eviction": "twins",
    "honest_ttl_eviction": "twins.idle",
    "slow_serialised": "concurrency or parallel or siblings or twins.request",
    "gives_up_parked_after_2s": "states-hold",
    "users_normalised_everywhere": "boundary or identity",
}
MESSAGES = {
    "running_ignores_owner": ("http.ownership.while-running", "another user got HTTP 200"),
    "telling_404_body": ("http.ownership.same-body", "tells whether the session exists"),
    "unknown_status_word": ("http.status.known-value", "'waiting'"),
}
# The rule of a case with rules that each variant's finding names (the sentence the report quotes).
RULES = {
    "long_id_500": ("http.types.odd-values", "session-id"),
    "empty_user_skips_owner": ("http.types.odd-values", "user-id"),
    "empty_agent_skips_check": ("http.types.odd-values", "agent-id"),
    "parked_flag_never_cleared": ("http.later.permission-answered", "allowed"),
    "denied_still_waiting": ("http.later.permission-answered", "denied"),
    "cached_status_after_delete": ("http.later.deleted", "idle"),
    "deleted_run_keeps_lease": ("http.later.deleted", "running"),
    "cached_idle_any_caller": ("http.isolation.after-owner-probe", "other-user"),
    "probe_single_flight": ("http.concurrency.parallel-probes", "owner"),
    # The swapped caller shows as a leak to the other user, or, in another interleaving, as a 404
    # to the owner: the timing of 16 concurrent probes decides which comes first.
    "caller_in_global": ("http.concurrency.parallel-probes", ("others", "owner")),
    "status_resets_idle_timer": ("http.twins.idle-eviction", "probed"),
    "status_revives_evicted": ("http.twins.idle-eviction", "probed"),
    "status_keeps_user_alive": ("http.twins.idle-eviction", "neighbour"),
    "status_counts_as_use": ("http.twins.memory-cap", "probed"),
    "status_spends_allowance": ("http.twins.request-allowance", "probed"),
    "status_marks_active": ("http.twins.restart", "probed"),
    "parked_state_in_memory": ("http.later.states-hold", "permission"),
    "parked_forgotten_after_2s": ("http.later.states-hold", "permission"),
    "external_forgotten_after_2s": ("http.later.states-hold", "external"),
    "stale_park_reapplied": ("http.later.states-hold", "idle"),
    "running_keyed_by_user": ("http.neighbour.siblings", "running"),
    # Whichever sibling parked last lends the idle session its state.
    "parked_from_latest_reply": ("http.neighbour.siblings", ("parked", "external")),
    "crossed_status_slot": ("http.neighbour.siblings", ("crossed", "running", "parked", "external")),
    "status_during_chat_500": ("http.concurrency.races", "chat"),
    "delete_race_500": ("http.concurrency.races", "delete"),
    "status_saves_stale_copy": ("http.concurrency.races", "answer"),
    "user_ids_cut_at_64": ("http.boundary.id-lengths", "user-id"),
    "ids_cut_at_32": ("http.boundary.id-lengths", "session-id"),
    "agent_ids_cut_at_32": ("http.boundary.id-lengths", "agent-id"),
    "long_ids_cut_at_64": ("http.boundary.id-lengths", "session-id"),
    "path_decoded_twice": ("http.boundary.encodings", "double-decoding"),
    "user_header_decoded": ("http.boundary.encodings", "double-decoding"),
    "dot_segments_resolved": ("http.boundary.encodings", "dot-segments"),
    "user_nfc_status_only": ("http.boundary.encodings", "normalisation"),
}


# Inputs a variant's run needs besides FAST: a run longer than its lease's 5 s.
EXTRA: dict[str, tuple[str, ...]] = {
    "lease_expires_mid_run": ("--http-long-run", "7"),
    # Time for its worker to pick a run up (3 s) and for the run's 3 s model call.
    "queued_runs": ("--timeout", "7"),
    # Time for its 4.5 s deletion to show (after FAST's --timeout, which this one overrides).
    "slow_delete_keeps_lease": ("--timeout", "6"),
    # The policy each twin variant has, as its user states it.
    "status_resets_idle_timer": ("--http-idle-evict-after", "2"),
    "status_revives_evicted": ("--http-idle-evict-after", "2"),
    "status_keeps_user_alive": ("--http-idle-evict-after", "2"),
    "parked_state_in_memory": ("--http-idle-evict-after", "2"),
    "honest_ttl_eviction": ("--http-idle-evict-after", "2"),
    "status_counts_as_use": ("--http-memory-cap", "4"),
    "honest_lru_eviction": ("--http-memory-cap", "4"),
    "status_spends_allowance": ("--http-request-limit", "30"),
    # Its late answer (up to the run's 3 s) within the request clock.
    "status_waits_for_run": ("--timeout", "5"),
}
# Expensive cases a broken variant's test looks into although its delta does not name them (a
# conforming variant runs every case of its focus).
ALSO: dict[str, tuple[str, ...]] = {}


def selected(expression: str | None) -> set[str]:
    """The http cases ``-k expression`` selects (pytest matches a case by its id, its module's file
    name and its level marker, case-insensitively, by substring)."""
    if expression is None:
        return set(HTTP_CASES)
    compiled = Expression.compile(expression)

    def names(case_id: str) -> list[str]:
        case = CASES[case_id]
        return [case_id, case.module.rsplit(".", 1)[-1] + ".py", "cases", case.level.marker]

    return {
        c
        for c in HTTP_CASES
        if compiled.evaluate(lambda word, c=c: any(word.lower() in n.lower() for n in names(c)))
    }


def run_variant(direct, name: str, table: dict[str, tuple[int, dict[str, str]]]):
    """A broken variant's focus (or every case), less the expensive ones its delta does not name;
    a conforming variant's whole focus: the expensive cases are often the very ones whose
    assumption it defeats, and an empty delta names none of them."""
    code, delta = table[name]
    focus = FOCUS.get(name)
    chosen = selected(focus)
    assert set(delta) <= chosen, f"FOCUS[{name!r}] leaves out cases its delta names: {set(delta) - chosen}"
    focused = {c: BASELINE[c] for c in HTTP_CASES if c in chosen}
    if table is CONFORMING:
        cases, expected = sorted(chosen), focused | delta
    else:
        cases, expected = guarded(focused, delta | {c: focused[c] for c in ALSO.get(name, ())})
    run = direct("--http-cmd", _variant(name), *FAST, *EXTRA.get(name, ()), cases=cases)
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == code, run.stderr[-2000:]
    assert run.report["target"] == "http"
    return run, delta


@pytest.fixture
def plain_service() -> Iterator[str]:
    """The URL of tests/servers/plain_status_service.py (a service without AgentScope's API)."""
    with listening([sys.executable, str(ROOT / "tests" / "servers" / "plain_status_service.py")]) as url:
        yield url


def _variant(name: str) -> str:
    return python_command(str(HTTP_AGENTS / f"{name}.py"), "--listen", "127.0.0.1:0")


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(BROKEN))
def test_broken_service_gets_exactly_its_outcomes(variant: str, direct) -> None:
    run, delta = run_variant(direct, variant, BROKEN)
    if variant in MESSAGES:
        case_id, text = MESSAGES[variant]
        assert text in run.case(case_id)["message"]
    if variant in RULES:
        case_id, rule = RULES[variant]
        assert run.case(case_id)["rule"] in (rule if isinstance(rule, tuple) else (rule,))
    run.assert_explained(delta)


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(CONFORMING))
def test_conforming_service_passes(variant: str, direct) -> None:
    run, _ = run_variant(direct, variant, CONFORMING)
    if variant == "listing_other_layout":  # its entry is found under another layout, and judged
        for case_id in ("http.safe.no-side-effects", "http.safe.parked-stays-parked"):
            assert "listing" in run.case(case_id)["details"]["observed"]


# The reference with each piece of its machinery switched on (its flag) and the suite options that
# state it to the suite: conformant, the cases that machinery touches judged as the delta says.
CONFIGURATIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str, dict[str, str]]] = {
    "memory-cap": (
        ("--memory-cap", "4"),
        ("--http-memory-cap", "4"),
        "twins or states-hold or siblings or races or safe",
        {"http.twins.memory-cap": "pass"},
    ),
    "idle-evict-after": (
        ("--idle-evict-after", "2"),
        ("--http-idle-evict-after", "2"),
        "twins or states-hold or siblings",
        {"http.twins.idle-eviction": "pass"},
    ),
    "request-limit": (
        ("--request-limit", "60"),
        ("--http-request-limit", "60"),
        "twins.request or safe or races or siblings",
        {},
    ),
    "max-concurrent": (
        ("--max-concurrent", "2"),
        (),
        "concurrency or parallel or siblings or twins.request",
        {},
    ),
    "max-id-length": (("--max-id-length", "255"), (), "boundary or identity or odd-values or validation", {}),
    # In the run's working directory, which a restart keeps.
    "store": (("--store", "sessions.json"), (), "twins.restart or deleted", {"http.twins.restart": "pass"}),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_the_reference_with_its_machinery_on_is_certified(name: str, direct) -> None:
    flags, options, focus, delta = CONFIGURATIONS[name]
    chosen = selected(focus)
    assert set(delta) <= chosen
    expected = {c: BASELINE[c] for c in HTTP_CASES if c in chosen} | delta
    command = python_command("-m", "conformance.reference.http.service", "--listen", "127.0.0.1:0", *flags)
    run = direct("--http-cmd", command, *FAST, *options, cases=sorted(chosen))
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == 0, run.stderr[-2000:]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variant", "case_id", "outcome"),
    [
        ("honest_ttl_eviction", "http.twins.idle-eviction", "pass"),
        ("status_resets_idle_timer", "http.twins.idle-eviction", "fail"),
        ("honest_lru_eviction", "http.twins.memory-cap", "pass"),
    ],
)
def test_the_thorough_profile_looks_for_a_policy_nobody_stated(
    variant: str, case_id: str, outcome: str, direct
) -> None:
    """Without --http-idle-evict-after / --http-memory-cap the thorough profile holds the twins for
    --hold seconds, or pushes them with 64 sessions, and judges what it finds."""
    run = direct(
        "--http-cmd", _variant(variant), *FAST, "--profile", "thorough", "--hold", "3", cases=[case_id]
    )
    assert run.outcomes == {case_id: outcome}, run.diff({case_id: outcome})
    assert "discovery" in run.case(case_id)["details"]


def test_a_policy_nobody_stated_and_none_found_is_not_testable(direct) -> None:
    command = python_command("-m", "conformance.reference.http.service", "--listen", "127.0.0.1:0")
    run = direct(
        "--http-cmd",
        command,
        *FAST,
        "--profile",
        "thorough",
        "--hold",
        "1",
        cases=["http.twins.idle-eviction"],
    )
    assert run.outcomes == {"http.twins.idle-eviction": "not-testable"}
    assert "changed nothing" in run.case("http.twins.idle-eviction")["message"]
    ci = direct("--http-cmd", command, *FAST, cases=["http.twins.idle-eviction", "http.twins.memory-cap"])
    assert "--http-idle-evict-after" in ci.case("http.twins.idle-eviction")["message"]
    assert "--http-memory-cap" in ci.case("http.twins.memory-cap")["message"]


# The reference service, every case: tests/e2e/test_readme_commands.py
# runs it as the README's `--target http`.


# A service the suite cannot drive, probed on the given session: tests/e2e/test_readme_commands.py
# runs it as the README's `--http-url … --session-id s1`.


def test_without_a_session_to_probe_the_cases_say_what_to_pass(direct, plain_service: str) -> None:
    run = direct("--http-url", plain_service, "--user-id", "alice")
    assert set(run.outcomes.values()) == {"not-testable"}
    assert "--session-id" in run.case("http.status.shape")["message"]


def test_usage_errors_are_one_line(suite) -> None:
    same = suite("--target", "http", "--user-id", "bob", "--other-user-id", "bob")
    assert same.code == 2 and "must differ" in same.stderr
    half = suite("--target", "http", "--session-id", "s1")
    assert half.code == 2 and "together" in half.stderr
    for seconds, says in (("0", "more than 0"), ("soon", "not a number")):
        long_run = suite("--target", "http", "--http-long-run", seconds)
        assert long_run.code == 2 and says in long_run.stderr.strip().splitlines()[-1]
        idle = suite("--target", "http", "--http-idle-evict-after", seconds)
        assert idle.code == 2 and says in idle.stderr.strip().splitlines()[-1]
    for count, says in (("0", "more than 0"), ("many", "not a whole number"), ("2.5", "not a whole number")):
        cap = suite("--target", "http", "--http-memory-cap", count)
        assert cap.code == 2 and says in cap.stderr.strip().splitlines()[-1]
    limit = suite("--target", "http", "--http-request-limit", "-3")
    assert limit.code == 2 and "more than 0" in limit.stderr.strip().splitlines()[-1]


def test_every_http_case_is_caught_by_a_broken_service() -> None:
    caught = {c for _, delta in BROKEN.values() for c, o in delta.items() if o in ("fail", "warn")}
    assert set(HTTP_CASES) - caught == set()


def test_every_http_variant_is_listed() -> None:
    files = {p.stem for p in HTTP_AGENTS.glob("*.py") if not p.name.startswith("_")}
    assert files == set(BROKEN) | set(CONFORMING)
    assert set(BROKEN).isdisjoint(CONFORMING)
    assert set(FOCUS) <= files


def test_the_requirement_audit_is_backed_by_the_variants() -> None:
    """Each variant the HTTP revision's audit names makes the case it names fail (or warn) here."""
    deltas = expected_by_variant(BROKEN, "http/") | expected_by_variant(CONFORMING, "http/")
    assert check_variants_catch("http", deltas, prefix="http/") == []


# -- the probes' calibration, on data -----------------------------------------------------------


def test_a_view_is_compared_field_by_field() -> None:
    a = flatten({"messages": [{"id": "m1", "text": "hi"}], "fetched_at": "t1"}, "messages")
    b = flatten({"messages": [{"id": "m1", "text": "hi"}, {"id": "m2"}], "fetched_at": "t2"}, "messages")
    assert differing(a, b) == {"messages.fetched_at", "messages.messages[1].id"}
    assert parts_of(differing(a, b)) == {"messages"}
    assert flatten({"a": []}) == {"a": []} and flatten(5, "x") == {"x": 5}


def test_deep_bodies_flatten_without_recursing_forever() -> None:
    deep: list = []
    node = deep
    for _ in range(500):
        node.append([])
        node = node[0]
    assert len(flatten(deep, "body")) == 1


def test_an_unknown_id_takes_the_shape_of_the_services_ids() -> None:
    rng = random.Random(7)
    model = "0d51e6ed27a3488fba2d7c31a880e16e"
    made = shaped_like(model, rng)
    assert made != model and len(made) == len(model) and set(made) <= set("0123456789abcdef")
    upper = shaped_like(model.upper(), rng)
    assert set(upper) <= set("0123456789ABCDEF")
    dashed = shaped_like("123e4567-e89b-12d3-a456-426614174000", rng)
    assert [i for i, c in enumerate(dashed) if c == "-"] == [8, 13, 18, 23]
    assert shaped_like("s1", rng).startswith("conformance-missing-")  # too short to take a shape from
    assert shaped_like(None, rng, fallback_prefix="conformance-agent").startswith(
        "conformance-agent-missing-"
    )


def test_a_404_body_is_compared_outside_what_varies_per_request() -> None:
    def answer(code: int, body: dict) -> StatusProbe:
        return StatusProbe(httpx.Response(code, json=body))

    first = answer(404, {"detail": "Session 'u1' not found.", "request_id": "r1"})
    second = answer(404, {"detail": "Session 'u2' not found.", "request_id": "r2"})
    unknown = Unknown404(first, "u1", second, "u2")
    assert unknown.volatile == {"body.request_id"} and unknown.comparable
    same = answer(404, {"detail": "Session 's9' not found.", "request_id": "r3"})
    assert unknown.differs(same, "s9") == []
    telling = answer(404, {"detail": "Session belongs to another user", "request_id": "r4"})
    assert unknown.differs(telling, "s9") == ["body.detail"]
    assert unknown.differs(answer(403, {"detail": "no"}), "s9") == ["HTTP 403, not 404"]
    noise = Unknown404(answer(404, {"t": "a"}), "u1", answer(404, {"t": "b"}), "u2")
    assert not noise.comparable


def test_the_listing_entry_is_found_whatever_the_layout() -> None:
    agentscope = {"sessions": [{"session": {"id": "s1"}, "status": "idle"}, {"session": {"id": "s2"}}]}
    assert find_entry(agentscope, "s2") == {"session": {"id": "s2"}}
    other = {"data": {"items": [{"sessionId": "s1", "state": "idle"}]}}
    assert find_entry(other, "s1") == {"sessionId": "s1", "state": "idle"}
    assert find_entry({"sessions": []}, "s1") is None and find_entry("not json", "s1") is None


def test_an_odd_id_is_one_path_segment() -> None:
    assert segment("..") == "%2E%2E" and segment("a/b c") == "a%2Fb%20c"
    assert segment("séance") == "s%C3%A9ance" and segment("0d51e6ed") == "0d51e6ed"


# -- the twins' judgement, on data --------------------------------------------------------------


def _fate(status: str = "HTTP 200 awaiting_permission", changed: tuple[str, ...] = ()) -> Fate:
    return Fate(status, "HTTP 200", ("user: text", "assistant: tool_call/asking"), True, changed)


EVICTED = ("messages.body.event_cursor -> null",)


def _fates(c1: Fate, c2: Fate, a1: Fate, a2: Fate, b1: Fate, b2: Fate) -> dict[tuple[str, int], Fate]:
    pairs = ("calibration", "probed-first", "probed-second")
    return {
        (pair, place): fate
        for (pair, place), fate in zip(
            [(p, i) for p in pairs for i in (1, 2)], [c1, c2, a1, a2, b1, b2], strict=True
        )
    }


def test_twins_that_end_by_their_place_are_no_side_effect() -> None:
    """A least-recently-used cap that evicts the first-created twin of each pair: the probed twin
    ends apart from its sibling in one pair and the other way round in the other."""
    old, new = _fate(changed=EVICTED), _fate()
    verdict = judge(_fates(old, new, old, new, old, new), None, [])
    assert verdict.rule == "" and verdict.notes  # the pairs ended apart, by place: noted, not judged


def test_a_probed_twin_that_ends_apart_either_way_round_is_a_side_effect() -> None:
    kept, evicted = _fate(), _fate(changed=EVICTED)
    verdict = judge(_fates(evicted, evicted, kept, evicted, evicted, kept), None, [])
    assert verdict.rule == "probed" and "event_cursor" in verdict.message


def test_an_unprobed_twin_kept_beside_a_probed_one_is_a_side_effect_on_a_neighbour() -> None:
    kept, evicted = _fate(), _fate(changed=EVICTED)
    verdict = judge(_fates(evicted, evicted, kept, kept, kept, kept), None, [])
    assert verdict.rule == "neighbour"


def test_twins_a_pressure_changed_nothing_of_are_not_evidence_unless_they_deviate() -> None:
    same = _fate()
    assert judge(_fates(same, same, same, same, same, same), "nothing changed", []).rule == "unobserved"
    assert (
        judge(_fates(same, same, same, same, same, same), "nothing changed", ["a twin: idle"]).rule
        == "consistent"
    )


def test_a_changed_field_is_compared_by_what_twins_can_share() -> None:
    before = {"messages.code": 200, "messages.body.event_cursor": "e1"}
    twin = Twin("calibration", 1, "a", "s", probed=False, before=before)
    after = {"messages.code": 200, "messages.body.event_cursor": "7f3a", "messages.body.word": "idle"}
    twin.before["messages.body.word"] = "asking"
    fate = fate_of(twin, after, set(), StatusProbe(httpx.Response(200, json={"status": "idle"})))
    assert fate.changed == ("messages.body.event_cursor -> <text>", "messages.body.word -> 'idle'")
    assert fate.status == "HTTP 200 idle" and fate.messages == "HTTP 200"


def test_a_status_is_checked_against_the_sessions_own_messages() -> None:
    view = flatten(
        {
            "code": 200,
            "body": {
                "messages": [
                    {"role": "user", "content": [{"type": "text"}]},
                    {"role": "assistant", "content": [{"type": "tool_call", "state": "asking"}]},
                ]
            },
        },
        "messages",
    )
    assert tail_of(view) == ("user: text", "assistant: tool_call/asking")

    def probe(status: str) -> StatusProbe:
        return StatusProbe(httpx.Response(200, json={"status": status}))

    assert "asking" in (disagreement(view, probe("idle")) or "")
    assert disagreement(view, probe("awaiting_permission")) is None
    assert disagreement(view, probe("running")) is None  # a run may hold it meanwhile
    settled = flatten({"code": 200, "body": {"messages": [{"role": "assistant", "content": []}]}}, "messages")
    assert "no tool call" in (disagreement(settled, probe("awaiting_permission")) or "")
    assert "404" in (disagreement(settled, StatusProbe(httpx.Response(404, json={}))) or "")

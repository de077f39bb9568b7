"""The HTTP target: the reference service is certified, every `http.*` case is shown to fail by a
broken variant in tests/agents/http built for it (with the consequences its bug has on the cases
it can touch, listed here so nothing else there may differ), every conforming variant that defeats
an assumption a probe could make passes, and the probes' judgement is tested on data."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator

import conformance.cases as cases
import httpx
import pytest
from conformance.cases.http.identity import judge_user_form
from conformance.cases.http.sequences import AFTER, CHOICES, Divergence, allowed, draw, needed
from conformance.cases.http.status import Unknown404

from conformance.core.registry import CASES
from conformance.reference.http.service import matches
from conformance.targets.http.agentscope import segment
from conformance.targets.http.calibration import differing, flatten, parts_of, shaped_like
from conformance.targets.http.target import StatusProbe, find_entry, listed_values
from conformance.targets.http.twins import (
    Fate,
    Twin,
    disagreement,
    fate_of,
    judge,
    no_longer_waiting,
    tail_of,
)
from tests.conftest import AGENTS, ROOT, listening, python_command
from tests.variants import Table, Variant, audit_not_backed, certify, file_of, uncaught, unlisted

cases.load_all()

HTTP_AGENTS = AGENTS / "http"
HTTP_CASES = sorted(c for c in CASES if CASES[c].target == "http")
# The reference without the options that state a policy it does not have (an idle eviction, a
# memory cap) and without a store that outlives a restart: those twins are not testable.
NOT_STATED = dict.fromkeys(
    [
        "http.twins.idle-eviction",
        "http.twins.memory-cap",
        "http.twins.restart",
        "http.state.runs-past-memory-cap",
    ],
    "not-testable",
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

# variant file in tests/agents/http -> its exit code, the outcomes that differ from BASELINE, the
# cases it can touch (focus, as -k selects them; the rest would only repeat the reference's passes),
# the options its run needs besides FAST (args), and for a case with rules the rule its finding
# names, the sentence the report quotes (rule).
BROKEN: dict[str, Variant] = {
    # 403 to another user: every check that asks as another user (and "ALICE" is another user).
    "forbidden_other_user": Variant(
        1,
        {
            "http.ownership.other-user-404": "fail",
            "http.ownership.same-body": "fail",
            "http.isolation.after-owner-probe": "fail",
            "http.identity.user-id-variants": "fail",
            "http.concurrency.parallel-probes": "fail",
        }
        | HIDDEN_EVERYWHERE,
        focus=OWNERSHIP,
    ),
    "telling_404_body": Variant(
        1,
        {"http.ownership.same-body": "fail", "http.isolation.after-owner-probe": "fail"} | HIDDEN_EVERYWHERE,
        focus=OWNERSHIP,
        message=("http.ownership.same-body", "tells whether the session exists"),
    ),
    # The same, with a fresh request id in every 404: only the field the telling answers add shows it.
    "noisy_telling_404": Variant(
        1,
        {"http.ownership.same-body": "fail", "http.isolation.after-owner-probe": "fail"} | HIDDEN_EVERYWHERE,
        focus=OWNERSHIP,
    ),
    # Only a real agent of the caller's, other than the session's, shows it.
    "agent_check_by_owner": Variant(1, {"http.ownership.wrong-agent-404": "fail"}, focus=OWNERSHIP),
    "ignores_agent_id": Variant(
        1,
        {
            "http.ownership.wrong-agent-404": "fail",
            "http.isolation.after-owner-probe": "fail",
            "http.identity.agent-id-variants": "fail",
            "http.types.odd-values": "fail",
        }
        | HIDDEN_EVERYWHERE,
        focus=OWNERSHIP,
    ),
    # NaN in the status body of a session that never ran (blind 12): not JSON, so every case that
    # reads a fresh session's status cannot (the status check names RFC 8259's NaN).
    "nan_idle_for": Variant(
        1,
        {
            "http.status.shape": "fail",
            "http.state.idle-fresh": "fail",
            "http.boundary.id-lengths": "fail",
            "http.concurrency.races": "fail",
            "http.failure.refused-requests": "fail",
            "http.neighbour.siblings": "fail",
        },
        focus="shape or idle-fresh or id-lengths or races or refused-requests or siblings",
        message=("http.status.shape", "NaN is not valid JSON"),
    ),
    # An empty 200 for any session nobody has (never created, odd, deleted, another form): the
    # unknown-session answer others are compared with is wrong too. Probing creates nothing, so
    # http.safe.no-side-effects passes (its messages stay 404).
    "empty_200_unknown": Variant(
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
        focus=f"unknown or side-effects or deleted or {OWNERSHIP}",
    ),
    # An id no session has answered for the caller's session of that name: only a value the listing
    # shows (the suite's own session names) meets one.
    "status_by_name": Variant(1, {"http.unknown.not-found": "fail"}, focus="unknown"),
    # Probing an unknown id creates it: the id variants and the odd ids too, and a deleted session
    # comes back.
    "status_creates_session": Variant(
        1,
        {
            "http.unknown.not-found": "fail",
            "http.safe.no-side-effects": "fail",
            "http.identity.session-id-variants": "fail",
            "http.fuzz.session-id-forms": "fail",
            "http.types.odd-values": "fail",
            "http.later.deleted": "fail",
        },
        focus=f"unknown or side-effects or deleted or {OWNERSHIP}",
    ),
    # The lease outlives the run, so no session that ran is ever anything but running again (the
    # later cases and the other parked ones fail the same way: not run here).
    "lease_never_released": Variant(
        1,
        {
            "http.state.idle-after-run": "fail",
            "http.state.awaiting-permission": "fail",
            "http.state.awaiting-external": "fail",
            "http.ownership.while-parked": "fail",
        },
        focus="idle-after-run or awaiting-permission or awaiting-external or while-parked",
    ),
    "precedence_inverted": Variant(
        1,
        {"http.state.running-during-run": "fail", "http.ownership.while-running": "fail"},
        focus="running-during-run or while-running",
    ),
    "parked_as_idle": Variant(
        1,
        {"http.state.awaiting-permission": "fail", "http.ownership.while-parked": "fail"},
        focus="awaiting-permission or while-parked",
    ),
    "external_as_permission": Variant(1, {"http.state.awaiting-external": "fail"}, focus="awaiting-external"),
    # One call of either kind parks right; only a reply parked on both shows the order of the checks.
    "external_checked_first": Variant(
        1, {"http.state.permission-over-external": "fail"}, focus="awaiting or over-external"
    ),
    # Answering one of two parked calls releases the other in the status alone.
    "partial_answer_idle": Variant(1, {"http.state.permission-over-external": "fail"}, focus="over-external"),
    # The first waiting call decides: right with the permission call first, wrong the other way.
    "parked_from_first_call": Variant(
        1, {"http.state.permission-over-external": "fail"}, focus="over-external"
    ),
    "unknown_status_word": Variant(
        1,
        {
            "http.status.known-value": "fail",
            "http.state.awaiting-permission": "fail",
            "http.ownership.while-parked": "fail",
        },
        focus="known-value or awaiting-permission or while-parked",
        message=("http.status.known-value", "'waiting'"),
    ),
    # "queued" while a run waits for its worker: a word only a probe during that wait sees.
    "queued_word": Variant(1, {"http.status.known-value": "fail"}, focus="known-value"),
    "wrong_session_echo": Variant(1, {"http.status.shape": "fail"}, focus="shape"),
    "status_as_html": Variant(1, {"http.status.shape": "fail"}, focus="shape"),
    "new_session_not_idle": Variant(1, {"http.state.idle-fresh": "fail"}, focus="idle"),
    "missing_agent_400": Variant(1, {"http.validation.missing-agent-id": "fail"}, focus="validation"),
    "missing_user_detail_text": Variant(1, {"http.validation.missing-user-id": "fail"}, focus="validation"),
    "validation_error_as_text": Variant(
        1,
        {"http.validation.missing-agent-id": "fail", "http.validation.missing-user-id": "fail"},
        focus="validation",
    ),
    # A probe holds the lease for 2 s: the probe after it reads running, and a run cannot start.
    "probe_takes_lease": Variant(
        1,
        {
            "http.safe.no-lease": "fail",
            "http.safe.no-side-effects": "fail",
            "http.concurrency.parallel-probes": "fail",
        },
        focus="no-lease or side-effects or known-value or parallel",
    ),
    "probe_touches_session": Variant(
        1,
        {"http.safe.no-side-effects": "fail", "http.safe.parked-stays-parked": "fail"},
        focus="safe",
    ),
    # The same, with every chat input applied 0.5 s after POST /chat/ answers.
    "probe_touches_late_writes": Variant(
        1,
        {"http.safe.no-side-effects": "fail", "http.safe.parked-stays-parked": "fail"},
        focus="safe",
    ),
    "running_ignores_owner": Variant(
        1,
        {"http.ownership.while-running": "fail"},
        focus=OWNERSHIP,
        message=("http.ownership.while-running", "another user got HTTP 200"),
    ),
    "parked_ignores_owner": Variant(
        1,
        {"http.ownership.while-parked": "fail", "http.ownership.while-external": "fail"},
        focus=OWNERSHIP,
    ),
    # -- the requirement audit's ways, each caught by the check it names --------------------------
    # The generated forms include the scripted ones' kinds (case, prefix), so they catch these too.
    "case_insensitive_ids": Variant(
        1,
        {"http.identity.session-id-variants": "fail", "http.fuzz.session-id-forms": "fail"},
        focus="identity",
    ),
    "prefix_match_ids": Variant(
        1,
        {"http.identity.session-id-variants": "fail", "http.fuzz.session-id-forms": "fail"},
        focus="identity",
    ),
    # 422 for every id that is not a UUID, while its OpenAPI types session_id as a string.
    "uuid_ids_undeclared_422": Variant(
        1,
        dict.fromkeys(
            ["http.identity.session-id-variants", "http.fuzz.session-id-forms", "http.types.odd-values"],
            "fail",
        ),
        focus="identity",
        rule=("http.types.odd-values", "session-id"),
    ),
    # A tracing middleware answers 500 for any 4xx of a request carrying W3C trace context.
    "traced_errors_500": Variant(
        1,
        dict.fromkeys(
            ["http.unknown.not-found", "http.validation.missing-agent-id", "http.validation.missing-user-id"],
            "fail",
        ),
        focus="unknown or validation",
    ),
    # Publishes maxLength 255 and refuses an id of exactly 255 with 422: narrower than its own
    # contract, at its edge (a mutant of the reference's storage check; certified before).
    "ids_refused_at_published_max": Variant(
        1,
        {"http.boundary.id-lengths": "fail"},
        focus="boundary",
        rule=("http.boundary.id-lengths", "session-id"),
    ),
    "ids_refused_at_published_max/400": Variant(
        1,
        {"http.boundary.id-lengths": "fail"},
        focus="boundary",
        agent_args=("--code", "400"),
        rule=("http.boundary.id-lengths", "session-id"),
    ),
    # The limit counted in UTF-8 bytes: an id of the published length in wide characters gets 422.
    "ids_refused_at_published_max/bytes": Variant(
        1,
        {"http.boundary.id-lengths": "fail"},
        focus="boundary",
        agent_args=("--bytes",),
        rule=("http.boundary.id-lengths", ("session-id", "agent-id")),
        message=("http.boundary.id-lengths", "counted in bytes"),
    ),
    # The caller's header alone refused at its published edge: another user there gets 422, not 404.
    "ids_refused_at_published_max/user": Variant(
        1,
        {"http.boundary.id-lengths": "fail"},
        focus="boundary",
        agent_args=("--only", "x-user-id"),
        rule=("http.boundary.id-lengths", "user-id"),
    ),
    # NFKC on the status route only: no scripted form shows it (they are their own NFKC forms).
    "status_id_nfkc": Variant(1, {"http.fuzz.session-id-forms": "fail"}, focus="identity"),
    # Status folds the owner's case alone, or alone does not: its ownership is not the service's.
    "owner_case_insensitive": Variant(1, {"http.identity.user-id-variants": "fail"}, focus="identity"),
    # Every route cuts x-user-id at "@": the owner's id at another domain is the owner everywhere.
    "user_id_local_part": Variant(1, {"http.ownership.other-user-404": "fail"}, focus="ownership"),
    "status_only_case_sensitive": Variant(
        1,
        {"http.identity.user-id-variants": "fail"},
        focus="identity",
        message=("http.identity.user-id-variants", "status alone tells it apart"),
    ),
    "agent_case_insensitive": Variant(1, {"http.identity.agent-id-variants": "fail"}, focus="identity"),
    "long_id_500": Variant(
        1, {"http.types.odd-values": "fail"}, focus="identity", rule=("http.types.odd-values", "session-id")
    ),
    "empty_user_skips_owner": Variant(
        1, {"http.types.odd-values": "fail"}, focus="identity", rule=("http.types.odd-values", "user-id")
    ),
    "empty_agent_skips_check": Variant(
        1, {"http.types.odd-values": "fail"}, focus="identity", rule=("http.types.odd-values", "agent-id")
    ),
    "parked_flag_never_cleared": Variant(
        1,
        {"http.later.permission-answered": "fail"},
        focus="permission-answered",
        rule=("http.later.permission-answered", "allowed"),
    ),
    "denied_still_waiting": Variant(
        1,
        {"http.later.permission-answered": "fail"},
        focus="permission-answered",
        rule=("http.later.permission-answered", "denied"),
    ),
    "external_flag_never_cleared": Variant(
        1, {"http.later.external-answered": "fail"}, focus="external-answered"
    ),
    "cached_status_after_delete": Variant(
        1, {"http.later.deleted": "fail"}, focus="deleted or isolation", rule=("http.later.deleted", "idle")
    ),
    "deleted_run_keeps_lease": Variant(
        1,
        {"http.later.deleted": "fail"},
        focus="deleted or isolation",
        rule=("http.later.deleted", "running"),
    ),
    # The run's cleanup writes the deleted session back after the 204 (blind round 21's
    # http_delete_zombie): it exists again, for good.
    "delete_undone_by_run": Variant(
        1,
        {"http.later.deleted": "fail"},
        focus="deleted or isolation",
        rule=("http.later.deleted", "running"),
    ),
    # The same bug behind a DELETE that takes effect after the run's model call: unobservable.
    "slow_delete_keeps_lease": Variant(
        0,
        {"http.later.deleted": "not-testable"},
        focus="deleted or shape",
        # Time for its 4.5 s deletion to show (after FAST's --timeout, which this one overrides).
        args=("--timeout", "6"),
    ),
    # Cached under the session id alone: probes sent together after the owner's are answered from it too.
    "cached_idle_any_caller": Variant(
        1,
        {"http.isolation.after-owner-probe": "fail", "http.concurrency.parallel-probes": "fail"},
        focus=OWNERSHIP,
        rule=("http.isolation.after-owner-probe", "other-user"),
    ),
    "external_ignores_owner": Variant(1, {"http.ownership.while-external": "fail"}, focus=OWNERSHIP),
    "probe_expires_permission": Variant(1, {"http.safe.parked-stays-parked": "fail"}, focus="parked-stays"),
    "probe_single_flight": Variant(
        1,
        {"http.concurrency.parallel-probes": "fail"},
        focus="parallel or isolation",
        rule=("http.concurrency.parallel-probes", "owner"),
    ),
    "caller_in_global": Variant(
        1,
        {"http.concurrency.parallel-probes": "fail"},
        focus="parallel or isolation",
        # The swapped caller shows as a leak to the other user, or, in another interleaving, as a 404
        # to the owner: the timing of 16 concurrent probes decides which comes first.
        rule=("http.concurrency.parallel-probes", ("others", "owner")),
    ),
    "probe_renews_lease": Variant(
        1, {"http.state.idle-after-run": "fail"}, focus="idle-after-run or running-during-run"
    ),
    "lease_expires_mid_run": Variant(
        1,
        {"http.state.running-outlives-lease": "fail"},
        focus="running",
        # A run longer than its lease's 5 s.
        args=("--http-long-run", "7"),
    ),
    # Its cap's eviction loop spins when every loaded session has a run going: the service hangs.
    "eviction_spins_when_all_running": Variant(
        1,
        {"http.state.runs-past-memory-cap": "fail"},
        focus="past-memory",
        args=("--http-memory-cap", "3"),
        agent_args=("--memory-cap", "3"),
    ),
    # A run that finds its session evicted at its own use dies after its lease renewer started.
    "run_lost_when_evicted_at_start": Variant(
        1,
        {"http.state.runs-past-memory-cap": "fail"},
        focus="past-memory",
        args=("--http-memory-cap", "3"),
        agent_args=("--memory-cap", "3"),
    ),
    # The same without the optional interrupt route: the lost run never calls the model.
    "run_lost_when_evicted_at_start/no-interrupt": Variant(
        1,
        {"http.state.runs-past-memory-cap": "fail"},
        focus="past-memory",
        args=("--http-memory-cap", "3"),
        agent_args=("--memory-cap", "3", "--no-interrupt"),
    ),
    # Its cap evicts the running session (and its lease) once 4 other sessions are used meanwhile.
    "eviction_drops_lease": Variant(
        1,
        {"http.state.running-outlives-lease": "fail"},
        focus="outlives",
        args=("--http-long-run", "4", "--http-memory-cap", "4"),
        message=("http.state.running-outlives-lease", "other sessions were used"),
    ),
    "thinking_block_parks": Variant(
        1, {"http.state.parked-only-by-tool-calls": "fail"}, focus="parked or awaiting"
    ),
    "thinking_block_parks_queued": Variant(
        1, {"http.state.parked-only-by-tool-calls": "fail"}, focus="parked-only"
    ),
    # -- bugs that show later, under pressure, with overlapping calls, at boundaries, via a neighbour --
    # Twins: each with the suite option that states the service's policy (its args).
    "status_resets_idle_timer": Variant(
        1,
        {"http.twins.idle-eviction": "fail"},
        focus="twins",
        args=("--http-idle-evict-after", "2"),
        rule=("http.twins.idle-eviction", "probed"),
    ),
    "status_revives_evicted": Variant(
        1,
        {"http.twins.idle-eviction": "fail"},
        focus="twins",
        args=("--http-idle-evict-after", "3"),
        rule=("http.twins.idle-eviction", "probed"),
    ),
    # Under a cap of one no pair fits in memory: the twins go through the pressure one at a time
    # (not testable before).
    "status_revives_evicted/memory-cap-1": Variant(
        1,
        {"http.twins.memory-cap": "fail"},
        focus="twins.memory",
        args=("--http-memory-cap", "1"),
        agent_args=("--memory-cap", "1"),
        rule=("http.twins.memory-cap", "probed"),
    ),
    "status_keeps_user_alive": Variant(
        1,
        {"http.twins.idle-eviction": "fail"},
        focus="twins",
        args=("--http-idle-evict-after", "2"),
        rule=("http.twins.idle-eviction", "neighbour"),
    ),
    "status_counts_as_use": Variant(
        1,
        {"http.twins.memory-cap": "fail"},
        focus="twins",
        args=("--http-memory-cap", "4"),
        rule=("http.twins.memory-cap", "probed"),
    ),
    "status_spends_allowance": Variant(
        1,
        {"http.twins.request-allowance": "fail"},
        focus="twins",
        args=("--http-request-limit", "30"),
        rule=("http.twins.request-allowance", "probed"),
    ),
    "status_marks_active": Variant(
        1, {"http.twins.restart": "fail"}, focus="twins", rule=("http.twins.restart", "probed")
    ),
    "store_loses_external_calls": Variant(
        1, {"http.twins.restart": "fail"}, focus="twins.restart", rule=("http.twins.restart", "durable")
    ),
    # Start-up closes every reply the store left open as an interrupt does: parked calls get a made-up
    # result (blind round 21's http_restart_compact).
    "restart_ends_parked_calls": Variant(
        1, {"http.twins.restart": "fail"}, focus="twins.restart", rule=("http.twins.restart", "durable")
    ),
    # A store written as an upsert: a session deleted before a restart is back after it.
    "store_keeps_deleted": Variant(
        1,
        {"http.twins.restart": "fail"},
        focus="twins.restart or deleted",
        rule=("http.twins.restart", "deleted"),
    ),
    # The parked state lives in memory only: forgotten once the session is evicted (2 s idle).
    "parked_state_in_memory": Variant(
        1,
        {"http.later.states-hold": "fail", "http.twins.idle-eviction": "fail"},
        focus="states-hold or twins",
        args=("--http-idle-evict-after", "2"),
        rule=("http.later.states-hold", "permission"),
    ),
    "parked_forgotten_after_2s": Variant(
        1,
        {"http.later.states-hold": "fail"},
        focus="states-hold or awaiting or parked",
        rule=("http.later.states-hold", "permission"),
    ),
    "external_forgotten_after_2s": Variant(
        1,
        {"http.later.states-hold": "fail"},
        focus="states-hold or awaiting-external",
        rule=("http.later.states-hold", "external"),
    ),
    "stale_park_reapplied": Variant(
        1,
        {"http.later.states-hold": "fail"},
        focus="states-hold or permission",
        rule=("http.later.states-hold", "idle"),
    ),
    "running_keyed_by_user": Variant(
        1,
        {"http.neighbour.siblings": "fail"},
        focus="siblings or running",
        rule=("http.neighbour.siblings", "running"),
    ),
    "parked_from_latest_reply": Variant(
        1,
        {"http.neighbour.siblings": "fail"},
        focus="siblings or awaiting",
        # Whichever sibling parked last lends the idle session its state.
        rule=("http.neighbour.siblings", ("parked", "external")),
    ),
    "crossed_status_slot": Variant(
        1,
        {"http.neighbour.siblings": "fail"},
        focus="siblings or parallel",
        rule=("http.neighbour.siblings", ("crossed", "running", "parked", "external")),
    ),
    # Its chat rewrites the record across an await, and the answer to a permission request is a
    # chat too: whichever race's probes land inside the rewrite first show the 500 (under load the
    # chat race's may all miss it).
    "status_during_chat_500": Variant(
        1,
        {"http.concurrency.races": "fail"},
        focus="races or no-lease",
        rule=("http.concurrency.races", ("chat", "answer")),
    ),
    "delete_race_500": Variant(
        1,
        {"http.concurrency.races": "fail"},
        focus="races or deleted",
        rule=("http.concurrency.races", "delete"),
    ),
    "status_saves_stale_copy": Variant(
        1,
        {"http.concurrency.races": "fail"},
        focus="races or permission-answered or parked-stays",
        rule=("http.concurrency.races", "answer"),
    ),
    # A probe sent while the run works, answered once it has ended: evidence, not "not testable".
    "status_waits_for_run": Variant(
        1,
        {"http.state.running-during-run": "fail", "http.ownership.while-running": "fail"},
        focus="running-during-run or while-running or deleted",
        # Its late answer (up to the run's 3 s) within the request clock.
        args=("--timeout", "5"),
    ),
    "user_ids_cut_at_64": Variant(
        1,
        {"http.boundary.id-lengths": "fail"},
        focus="boundary or identity",
        rule=("http.boundary.id-lengths", "user-id"),
    ),
    "ids_cut_at_32": Variant(
        1,
        {"http.boundary.id-lengths": "fail"},
        focus="boundary or identity",
        rule=("http.boundary.id-lengths", "session-id"),
    ),
    # Cut on the status route only: its agent_id with a trailing space (cut off) shows it too.
    "agent_ids_cut_at_32": Variant(
        1,
        {"http.boundary.id-lengths": "fail", "http.identity.agent-id-variants": "fail"},
        focus="boundary or identity",
        rule=("http.boundary.id-lengths", "agent-id"),
    ),
    "long_ids_cut_at_64": Variant(
        1,
        {"http.boundary.id-lengths": "fail"},
        focus="boundary or identity",
        rule=("http.boundary.id-lengths", "session-id"),
    ),
    "path_decoded_twice": Variant(
        1,
        {"http.boundary.encodings": "fail"},
        focus="boundary or identity",
        rule=("http.boundary.encodings", "double-decoding"),
    ),
    "user_header_decoded": Variant(
        1,
        {"http.boundary.encodings": "fail"},
        focus="boundary or identity",
        rule=("http.boundary.encodings", "double-decoding"),
    ),
    "dot_segments_resolved": Variant(
        1,
        {"http.boundary.encodings": "fail"},
        focus="boundary or odd-values",
        rule=("http.boundary.encodings", "dot-segments"),
    ),
    "user_nfc_status_only": Variant(
        1,
        {"http.boundary.encodings": "fail"},
        focus="boundary or identity",
        rule=("http.boundary.encodings", "normalisation"),
    ),
    # Every route but status takes NFC and NFD for one user: status's 404 is not the service's.
    "status_only_not_normalised": Variant(
        1,
        {"http.boundary.encodings": "fail"},
        focus="boundary or identity",
        rule=("http.boundary.encodings", "normalisation"),
        message=("http.boundary.encodings", "status alone takes the two forms apart"),
    ),
    # -- the protocol underneath, as clients, caches and proxies use it (RFC 9110) -------------------
    "etag_from_record": Variant(
        1, {"http.protocol.conditional": "fail"}, focus="protocol", rule=("http.protocol.conditional", "etag")
    ),
    "last_modified_from_creation": Variant(
        1,
        {"http.protocol.conditional": "fail"},
        focus="protocol",
        rule=("http.protocol.conditional", "last-modified"),
    ),
    "head_for_anyone": Variant(
        1,
        {"http.protocol.owner-everywhere": "fail"},
        focus="protocol",
        rule=("http.protocol.owner-everywhere", "head"),
    ),
    # Cache-Control public with a freshness lifetime and no Vary: a shared cache answers anyone with
    # the owner's status (blind 13, certified before); the same said by Expires.
    "public_cache_no_vary": Variant(
        1,
        {"http.protocol.owner-everywhere": "fail"},
        focus="protocol",
        rule=("http.protocol.owner-everywhere", "shared-cache"),
    ),
    "expires_no_vary": Variant(
        1,
        {"http.protocol.owner-everywhere": "fail"},
        focus="protocol",
        rule=("http.protocol.owner-everywhere", "shared-cache"),
    ),
    # 404s cacheable by a shared cache for half a minute: another user's 404 reaches the owner.
    "refusals_cached_publicly": Variant(
        1,
        {"http.protocol.owner-everywhere": "fail"},
        focus="protocol",
        rule=("http.protocol.owner-everywhere", "shared-cache"),
    ),
    # If-None-Match answered 304 before the owner check: a cache's revalidation for another user.
    "revalidation_before_owner": Variant(
        1,
        {"http.protocol.owner-everywhere": "fail"},
        focus="protocol",
        rule=("http.protocol.owner-everywhere", "conditional"),
    ),
    "trailing_slash_skips_owner": Variant(
        1,
        {"http.protocol.owner-everywhere": "fail"},
        focus="protocol",
        rule=("http.protocol.owner-everywhere", "trailing-slash"),
    ),
    "redirect_drops_owner": Variant(
        1,
        {"http.protocol.owner-everywhere": "fail"},
        focus="protocol",
        rule=("http.protocol.owner-everywhere", "trailing-slash"),
    ),
    # Origin taken for a trusted dashboard's: a browser's fetch reads anyone's status.
    "origin_skips_owner": Variant(
        1,
        {"http.protocol.owner-everywhere": "fail"},
        focus="protocol",
        rule=("http.protocol.owner-everywhere", "headers"),
    ),
    # A private address in X-Forwarded-For / X-Real-IP taken for an internal monitor's.
    "internal_forwarded_trusted": Variant(
        1,
        {"http.protocol.owner-everywhere": "fail"},
        focus="protocol",
        rule=("http.protocol.owner-everywhere", "headers"),
    ),
    "detail_route_skips_owner": Variant(
        1,
        {"http.protocol.owner-everywhere": "fail"},
        focus=f"protocol or {OWNERSHIP}",
        rule=("http.protocol.owner-everywhere", "route"),
    ),
    "brotli_cache_any_caller": Variant(
        1,
        {"http.protocol.owner-everywhere": "fail"},
        focus=f"protocol or {OWNERSHIP}",
        rule=("http.protocol.owner-everywhere", "coding"),
    ),
    # The translated words the language case's probes saw are reported by known-value too.
    "status_translated": Variant(
        1,
        {"http.protocol.language": "fail", "http.status.known-value": "fail"},
        focus="protocol or known-value",
        message=("http.protocol.language", "untätig"),
    ),
    # axios's default Accept and a charset parameter get 406; curl's */* is served.
    "accept_exact_406": Variant(1, {"http.protocol.accept": "fail"}, focus="protocol or shape"),
    # HEAD and OPTIONS refused 405 without Allow: an error handler drops the router's headers.
    "method_not_allowed_bare": Variant(
        1,
        {"http.protocol.header-fields": "fail"},
        focus="protocol",
        rule=("http.protocol.header-fields", "allow"),
    ),
    # HEAD and OPTIONS refused 405 with the Allow of the chat routes (POST): GET is not listed.
    "allow_of_another_route": Variant(
        1,
        {"http.protocol.header-fields": "fail"},
        focus="protocol",
        rule=("http.protocol.header-fields", "allow"),
    ),
    # A matching If-None-Match answered with a bare 304: the 200's ETag and Vary are missing.
    "not_modified_bare": Variant(
        1,
        {"http.protocol.header-fields": "fail"},
        focus="protocol",
        rule=("http.protocol.header-fields", "not-modified"),
    ),
    # -- twins inside a drawn sequence (seed 0: wait, wait, say, external) --------------------------
    "revalidation_saves_session": Variant(
        1, {"http.twins.sequence": "fail"}, focus="twins.sequence or protocol or safe"
    ),
    "listing_status_from_probe": Variant(
        1, {"http.twins.sequence": "fail"}, focus="twins.sequence or side-effects or siblings"
    ),
    # -- sessions created with the optional parameters the OpenAPI document names --------------------
    # The status looks the run lease up under the default workspace: a session in another never
    # reads running (blind round 6's http_workspace_lease).
    # http.ownership.while-running's session reads idle too (a running session is what it needs).
    "status_reads_default_workspace": Variant(
        1,
        {"http.state.running-during-run": "fail", "http.ownership.while-running": "fail"},
        focus="running-during-run or while-running",
    ),
    # The external call forgotten after 5 s, more than a hold: the sequence's closing watch (two
    # holds in growing waits) sees it; states-hold (one hold) does not.
    "external_forgotten_after_5s": Variant(
        1,
        {"http.twins.sequence": "fail"},
        focus="twins.sequence or states-hold or awaiting-external",
        also=("http.later.states-hold",),
        rule=("http.twins.sequence", "consistent"),
    ),
    # -- failure and interruption: the status watched right after and for a while -------------------
    "error_keeps_lease": Variant(1, {"http.failure.model-error": "fail"}, focus="failure or idle-after-run"),
    "interrupt_keeps_lease": Variant(
        1,
        {"http.failure.interrupt": "fail"},
        focus="failure or idle-after-run",
        rule=("http.failure.interrupt", "ended"),
    ),
    "interrupt_releases_early": Variant(
        1,
        {"http.failure.interrupt": "fail"},
        focus="failure or running-during-run",
        rule=("http.failure.interrupt", "worker"),
    ),
    # -- a refused request changes nothing: the owner's status after another's or its own refusal ----
    "refusal_drops_lease": Variant(
        1,
        {"http.failure.refused-requests": "fail"},
        focus="refused-requests",
        rule=("http.failure.refused-requests", "running"),
    ),
    "foreign_delete_interrupts": Variant(
        1,
        {"http.failure.refused-requests": "fail"},
        focus="refused-requests",
        rule=("http.failure.refused-requests", ("running", "parked")),
    ),
}
# Services that defeat an assumption a probe could make (ids are free-form, every character of an
# id is free, 404 bodies are equal, a view read twice is the same, the listing has AgentScope's
# layout, runs stream and start at once or at least within --timeout, the model's call parks the
# turn, ids and users compare exactly, alike on every route, a 422 carries a detail naming the field
# as sent, DELETE takes a running session, POST /chat/ starts runs and takes answers, a dot segment
# reaches the route): none may fail a case.
CONFORMING: dict[str, Variant] = {
    "clock_fields": Variant(0, {}, focus="side-effects or parked-stays or twins.sequence"),
    "listing_other_layout": Variant(0, {}, focus="side-effects or parked-stays or twins.sequence"),
    "request_id_in_404": Variant(0, {}, focus=OWNERSHIP),
    "timestamp_in_404": Variant(0, {}, focus=OWNERSHIP),
    "hex_ids_validated": Variant(0, {}, focus=f"unknown or side-effects or {OWNERSHIP}"),
    # A published `^[\w-]+$` validated as ECMA-262 reads it (ASCII): a fullwidth id is 422 by its contract.
    "ids_ascii_word_pattern": Variant(
        0, {}, focus=f"unknown or fuzz or boundary or {OWNERSHIP}", args=("--strict",)
    ),
    "unstreamed_model": Variant(0, {}, focus="running-during-run or while-running or failure"),
    "queued_runs": Variant(
        0,
        {},
        focus="running-during-run or while-running or refused-requests",
        # Time for its worker to pick a run up (3 s) and for the run's 3 s model call.
        args=("--timeout", "7"),
    ),
    # Two runs at once at most (429 past them), under a memory cap of 3: never more runs than the cap.
    "runs_limited_to_two": Variant(
        0,
        {},
        focus="past-memory or running-during-run",
        args=("--http-memory-cap", "3"),
        agent_args=("--memory-cap", "3"),
    ),
    # A second chat replaces the run going ("last message wins"): second chats are not refused.
    "second_chat_replaces_run": Variant(
        0,
        {"http.state.runs-past-memory-cap": "pass"},
        focus="past-memory or running-during-run or refused-requests",
        args=("--http-memory-cap", "3"),
        agent_args=("--memory-cap", "3"),
    ),
    # Its worker picks runs up 3 s after their chats: held runs reach their model calls late, together.
    "queued_runs/memory-cap": Variant(
        0,
        {"http.state.runs-past-memory-cap": "pass"},
        focus="past-memory",
        args=("--timeout", "7", "--http-memory-cap", "3"),
        agent_args=("--memory-cap", "3"),
    ),
    "case_insensitive_everywhere": Variant(0, {}, focus="identity"),
    # User ids folded on every route: the deployment's identity policy, status agreeing with it.
    "users_case_insensitive": Variant(
        0,
        {"http.identity.user-id-variants": "info"},
        focus=OWNERSHIP,
        args=("--strict",),
        message=("http.identity.user-id-variants", "folds user ids"),
    ),
    "uuid4_ids_validated": Variant(0, {}, focus=f"unknown or side-effects or deleted or {OWNERSHIP}"),
    # Every session named by its own id: the listing's name is a live id, never asked as an unknown one.
    "name_is_id": Variant(0, {}, focus="unknown or side-effects", args=("--strict",)),
    # CORS for a dashboard's origin (Access-Control-*, Vary: Origin), the owner checked as without it.
    "cors_dashboard": Variant(0, {}, focus="owner-everywhere or ownership", args=("--strict",)),
    # An e-mail-form or tagged x-user-id refused (400) on every route, before any session is looked up.
    "user_ids_validated": Variant(0, {}, focus="ownership or identity", args=("--strict",)),
    "missing_user_422_other_body": Variant(0, {}, focus="validation"),
    "header_loc_capitalised": Variant(0, {}, focus="validation"),
    "dot_segment_redirect": Variant(0, {}, focus="odd-values"),
    "lenient_messages": Variant(0, {}, focus="identity"),
    # DELETE of a running session carried out when its run ends: nothing to judge once it has.
    "delete_at_run_end": Variant(0, {"http.later.deleted": "not-testable"}, focus="deleted or shape"),
    # DELETE refused while a run holds the lease: no deleted running session to probe.
    "delete_refuses_running": Variant(
        0,
        {"http.later.deleted": "not-testable"},
        # A MUST that passes beside the not-testable ones: a run whose every MUST is not testable has
        # no verdict to compare.
        focus="deleted or shape",
    ),
    # The answering route refuses every answer, on a session no probe asked too.
    "confirm_elsewhere": Variant(
        0,
        dict.fromkeys(["http.later.permission-answered", "http.safe.parked-stays-parked"], "not-testable"),
        # With a MUST that passes beside the not-testable ones (as delete_refuses_running).
        focus="permission-answered or parked-stays or shape",
    ),
    # No run ever starts: every case that needs one is not testable.
    "chats_refused": Variant(
        0,
        dict.fromkeys(
            [
                "http.state.running-during-run",
                "http.state.idle-after-run",
                "http.state.awaiting-permission",
                "http.state.awaiting-external",
                "http.state.permission-over-external",
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
        # Without --http-long-run that case is not testable for the reference too.
        focus="(states or later or no-lease or parked-stays or known-value) and not outlives",
    ),
    # Runs picked up after --timeout: nothing a working run shows can be judged.
    "runs_start_after_timeout": Variant(
        0,
        dict.fromkeys(
            ["http.state.running-during-run", "http.state.idle-after-run", "http.ownership.while-running"],
            "not-testable",
        ),
        # With a MUST that passes beside the not-testable ones (as delete_refuses_running).
        focus="running-during-run or idle or while-running",
    ),
    # No turn ever waits for permission: what needs one is not testable, never failed.
    "no_permission_asked": Variant(
        0,
        dict.fromkeys(
            [
                "http.state.awaiting-permission",
                "http.state.permission-over-external",
                "http.ownership.while-parked",
                "http.later.permission-answered",
                "http.safe.parked-stays-parked",
            ],
            "not-testable",
        ),
        focus="permission or parked",
    ),
    # A client-sent assistant message is refused: the case that needs one is not testable.
    "assistant_input_refused": Variant(
        0, {"http.state.parked-only-by-tool-calls": "not-testable"}, focus="parked or awaiting"
    ),
    # The answered turn resumes after --timeout, and the status truly reads the context that still
    # holds the call: no run resumed, nothing to judge.
    "late_resume": Variant(
        0,
        dict.fromkeys(["http.later.permission-answered", "http.later.external-answered"], "not-testable"),
        focus="answered or parked or awaiting",
    ),
    # Sessions evicted for good (404 everywhere) by an honest policy the status does not feed.
    "honest_lru_eviction": Variant(
        0, {"http.twins.memory-cap": "pass"}, focus="twins", args=("--http-memory-cap", "4")
    ),
    "honest_ttl_eviction": Variant(
        0, {"http.twins.idle-eviction": "pass"}, focus="twins.idle", args=("--http-idle-evict-after", "2")
    ),
    "slow_serialised": Variant(0, {}, focus="concurrency or parallel or siblings or twins.request"),
    # The service gives an unanswered permission request up after 2 s: the hold ends there.
    "gives_up_parked_after_2s": Variant(0, {}, focus="states-hold"),
    "users_normalised_everywhere": Variant(0, {}, focus="boundary or identity"),
    # Validators that follow the status: a weak ETag and a Last-Modified of when it last changed.
    "weak_etags": Variant(0, {}, focus="protocol or twins.sequence"),
    # Freshness for private caches only, and a shared cache's copy keyed by caller (Vary: X-User-Id).
    "private_cache": Variant(0, {}, focus="protocol"),
    # HEAD served, OPTIONS 204 with Allow, and a 304 with every field its 200 carries.
    "options_and_full_304": Variant(0, {}, focus="protocol"),
    # No validator at all: nothing to revalidate.
    "no_store": Variant(0, {"http.protocol.conditional": "n/a"}, focus="protocol"),
    # Accept negotiated (406 only where no range takes JSON), answered with a charset parameter.
    "accept_negotiated": Variant(0, {}, focus="protocol or shape"),
    # A 307 from the trailing slash to the status route itself, and HEAD served with the owner check.
    "scoped_redirects": Variant(0, {}, focus="protocol"),
    "localised_detail": Variant(0, {}, focus=f"protocol or {OWNERSHIP}"),
    # More optional creation parameters (enums, a boolean, a bounded integer, a pattern), all ignored.
    "extra_creation_parameters": Variant(
        0, {}, focus="running-during-run or idle-after-run or twins.sequence or awaiting-permission"
    ),
    # An interrupt that lets the current model call end first, the lease held meanwhile.
    "interrupt_after_model_call": Variant(0, {}, focus="failure or twins.sequence or running-during-run"),
    # Extra fields in the status body, and every probe a 0.25 s storage read.
    "slow_status_extra_fields": Variant(0, {}, focus="shape or running-during-run or parallel"),
    # A new port each start, its URL printed a moment before it listens, nothing kept across a
    # restart: the restart twins are not testable (the baseline's outcome), the cases after go on.
    "new_port_keeps_nothing": Variant(0, {}, focus="twins.restart or later or safe"),
    # Sessions kept across a restart, not the agents and credentials: the restart twins are
    # judged, and the cases after it make a new agent.
    "store_keeps_sessions_only": Variant(
        0,
        {"http.twins.restart": "pass"},
        focus="twins.restart or later or safe",
        agent_args=("--store", "s.json"),
    ),
}


def _variant(name: str, *flags: str) -> str:
    return python_command(str(HTTP_AGENTS / f"{name}.py"), "--listen", "127.0.0.1:0", *flags)


def _start(name: str, variant: Variant) -> tuple[str, ...]:
    return ("--http-cmd", _variant(file_of(name), *variant.agent_args), *FAST)


# A broken service runs its focus, less the slow cases its delta does not name; a conforming one
# its whole focus: the slow cases are often the very ones whose assumption it defeats, and its
# empty delta names none of them.
BROKEN_TABLE = Table("http", BASELINE, _start, BROKEN)
CONFORMING_TABLE = Table("http", BASELINE, _start, CONFORMING, conforming=True, whole_focus=True)
TABLES = (BROKEN_TABLE, CONFORMING_TABLE)


@pytest.fixture
def plain_service() -> Iterator[str]:
    """The URL of tests/servers/plain_status_service.py (a service without AgentScope's API)."""
    with listening([sys.executable, str(ROOT / "tests" / "servers" / "plain_status_service.py")]) as url:
        yield url


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(BROKEN))
def test_broken_service_gets_exactly_its_outcomes(variant: str, direct) -> None:
    certify(direct, BROKEN_TABLE, variant)


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(CONFORMING))
def test_conforming_service_passes(variant: str, direct) -> None:
    run = certify(direct, CONFORMING_TABLE, variant)
    if variant == "listing_other_layout":  # its entry is found under another layout, and judged
        for case_id in ("http.safe.no-side-effects", "http.safe.parked-stays-parked"):
            assert "listing" in run.case(case_id)["details"]["observed"]


# The reference with each piece of its machinery switched on (its flag, agent_args) and the suite
# options that state it to the suite (args): conformant, the cases that machinery touches judged as
# the delta says.
CONFIGURATIONS: dict[str, Variant] = {
    "reference/memory-cap": Variant(
        0,
        {"http.twins.memory-cap": "pass", "http.state.runs-past-memory-cap": "pass"},
        focus="twins or states-hold or siblings or races or safe or outlives or past-memory",
        # The long run: time for N + 2 other sessions to be used while it works.
        args=("--http-memory-cap", "4", "--http-long-run", "4"),
        agent_args=("--memory-cap", "4"),
    ),
    "reference/memory-cap-1": Variant(
        0,
        {"http.twins.memory-cap": "pass", "http.state.runs-past-memory-cap": "pass"},
        focus="twins.memory or past-memory",
        args=("--http-memory-cap", "1"),
        agent_args=("--memory-cap", "1"),
    ),
    "reference/idle-evict-after": Variant(
        0,
        {"http.twins.idle-eviction": "pass"},
        focus="twins or states-hold or siblings",
        args=("--http-idle-evict-after", "2"),
        agent_args=("--idle-evict-after", "2"),
    ),
    "reference/request-limit": Variant(
        0,
        focus="twins.request or safe or races or siblings",
        args=("--http-request-limit", "60"),
        agent_args=("--request-limit", "60"),
    ),
    "reference/max-concurrent": Variant(
        0, focus="concurrency or parallel or siblings or twins.request", agent_args=("--max-concurrent", "2")
    ),
    "reference/max-id-length": Variant(
        0, focus="boundary or identity or odd-values or validation", agent_args=("--max-id-length", "255")
    ),
    # In the run's working directory, which a restart keeps.
    "reference/store": Variant(
        0,
        {"http.twins.restart": "pass"},
        focus="twins.restart or deleted",
        agent_args=("--store", "sessions.json"),
    ),
}


def _reference(name: str, variant: Variant) -> tuple[str, ...]:
    service = ("-m", "conformance.reference.http.service", "--listen", "127.0.0.1:0", *variant.agent_args)
    return ("--http-cmd", python_command(*service), *FAST)


CONFIGURED = Table("http", BASELINE, _reference, CONFIGURATIONS, conforming=True, whole_focus=True)


@pytest.mark.slow
@pytest.mark.parametrize("name", [pytest.param(n, id=n.partition("/")[2]) for n in sorted(CONFIGURATIONS)])
def test_the_reference_with_its_machinery_on_is_certified(name: str, direct) -> None:
    certify(direct, CONFIGURED, name)


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
    assert uncaught("http", TABLES) == set()


def test_every_http_variant_is_listed() -> None:
    assert unlisted("http", TABLES) == (set(), set())
    assert set(BROKEN).isdisjoint(CONFORMING)


def test_the_requirement_audit_is_backed_by_the_variants() -> None:
    """Each variant the HTTP revision's audit names makes the case it names fail (or warn) here."""
    assert audit_not_backed("http", TABLES) == []


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


def test_the_values_a_listing_returned_are_its_own_entry_first_and_never_a_live_id() -> None:
    listing = {
        "sessions": [
            {"session": {"id": "s2", "agent_id": "a1", "config": {"name": "s2"}}},
            {"session": {"id": "s1", "agent_id": "a1", "config": {"name": "nightly", "size": 3}}},
        ]
    }
    values, live = listed_values(listing, "s1")
    # The own entry's name, then its other strings, then the others' entries; every entry's id is
    # live, so a name equal to one (s2's) is never asked as an unknown id.
    assert values == ["nightly", "a1", "s2"] and live == {"s1", "s2"}
    assert listed_values({"sessions": []}, "s1") == ([], set())


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


def test_a_user_id_in_another_case_is_judged_by_the_services_own_routes() -> None:
    messages, listing = "the session's messages", "the listing of the agent's sessions"
    both: dict[str, bool | None] = {messages: True, listing: True}

    def kind(said: dict[str, bool | None], code: int, after: int | None = 404) -> str | None:
        found = judge_user_form("x-user-id upper-case", said, code, f"HTTP {code}", after)
        return None if found is None else found[0]

    assert kind(both, 200, 200) == "folded"  # the service's policy, status agreeing: info
    assert kind({messages: False, listing: False}, 404) is None  # exact everywhere
    assert kind({messages: False, listing: False}, 200) == "problem"  # status folds alone
    assert kind({messages: True, listing: False}, 200, 200) == "problem"  # one route says another user
    assert kind({messages: True, listing: False}, 404, 200) is None  # a 404 some route backs
    assert kind(both, 404, 200) == "problem"  # status alone tells the caller apart
    assert kind({}, 200, None) == "unjudged" and kind({}, 404, None) is None  # no calibrated route
    assert kind({messages: False}, 404, 200) == "problem"  # the probe made it an owner
    assert kind({messages: False}, 403) == "problem"  # neither the status nor 404


def test_a_parked_call_is_lost_once_it_waits_no_more() -> None:
    call = {"type": "tool_call", "id": "call_1", "name": "AskUser", "state": "submitted"}

    def view(*blocks: dict) -> dict:
        return flatten(
            {"code": 200, "body": {"messages": [{"role": "assistant", "content": list(blocks)}]}}, "messages"
        )

    assert no_longer_waiting([call], view(call)) == []  # still waiting
    finished = dict(call, state="finished")
    result = {"type": "tool_result", "id": "call_1", "state": "interrupted"}
    assert no_longer_waiting([call], view(finished, result)) == [call]  # ended, with a result nobody gave
    assert no_longer_waiting([call], view(finished)) == [call]  # ended by nothing
    assert no_longer_waiting([call], view(dict(call, id="call_2"))) == [call]  # another call waits


# -- the protocol cases' and the sequence's judgement, on data ----------------------------------


def test_if_none_match_is_compared_weakly() -> None:
    assert matches('"a1"', '"a1"') and matches('W/"a1"', '"a1"') and matches('"a1"', 'W/"a1"')
    assert matches('"b2", W/"a1"', '"a1"') and matches(" * ", '"a1"')
    assert not matches('"b2"', '"a1"') and not matches(None, '"a1"') and not matches("", '"a1"')


def test_a_drawn_sequence_takes_only_the_steps_its_state_allows() -> None:
    for seed in range(200):
        state = "idle"
        for step in draw(random.Random(seed)):
            assert step in CHOICES[state], (seed, state, step)
            state = AFTER.get(step, state)
        assert allowed(draw(random.Random(seed)))
    # Shrinking never tries an answer with nothing to answer.
    assert not allowed(["allow"]) and not allowed(["say", "submit"]) and allowed(["park", "wait", "deny"])
    seen = Divergence(1, "views", "listing.status", "'idle'", "'asking'")
    assert needed(seen, ["say", "park", "wait"]) == 2
    assert needed(Divergence(2, "status", "the status", "x", "y"), ["say", "park", "wait"]) == 3


def test_a_divergence_is_confirmed_only_when_it_follows_the_probe() -> None:
    first = Divergence(3, "views", "listing.status", "'idle'", "'awaiting_permission'")
    follows = Divergence(3, "views", "listing.status", "'idle'", "'awaiting_permission'")
    stays = Divergence(3, "views", "listing.status", "'awaiting_permission'", "'idle'")
    assert first.key == follows.key and first.key != stays.key
    assert "step 4 (external)" in first.describe(["say", "wait", "say", "external"])

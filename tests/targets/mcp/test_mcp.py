"""The MCP target: the reference server is certified over stdio and Streamable HTTP, and every
heartbeat case is shown to fail by a broken server in tests/agents/mcp built for it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conformance import cases
from conformance.core import revisions
from conformance.core.config import AgentConfig
from conformance.core.outcomes import Outcome
from conformance.core.registry import CASES
from conformance.runtime import Runtime
from conformance.targets.mcp.options import McpOptions
from tests.conftest import AGENTS, ROOT, guarded, python_command
from tests.unit.test_audit import check_variants_catch, expected_by_variant

cases.load_all()

MCP_AGENTS = AGENTS / "mcp"
HEARTBEAT = sorted(c for c in CASES if CASES[c].target == "mcp")
ACCESS = [c for c in HEARTBEAT if c.startswith("heartbeat.access.")]
INSTRUCTIONS = [c for c in HEARTBEAT if c.startswith("heartbeat.instructions.")]
TWINS = [c for c in HEARTBEAT if c.startswith("heartbeat.twins.")]
# The cases outside heartbeat.instructions that need the operator hook too.
HOOKED = [
    "heartbeat.later.pending-held",
    "heartbeat.overlap.concurrent-acks",
    "heartbeat.boundary.instruction-lengths",
    "heartbeat.boundary.instruction-encodings",
    "heartbeat.boundary.empty-ack-list",
]
# Over Streamable HTTP, with two callers and the operator endpoint, every case runs; the twins
# need the server's policies (--mcp-session-cap, --mcp-session-ttl, --mcp-request-limit).
HTTP_BASELINE = dict.fromkeys(HEARTBEAT, "pass") | dict.fromkeys(TWINS, "not-testable")
# Over stdio there is one caller: the access cases say what to pass instead.
STDIO_BASELINE = HTTP_BASELINE | dict.fromkeys(ACCESS, "not-testable")
REFERENCE_INSTRUCT_CMD = f"{sys.executable} -m conformance.reference.mcp.instruct {{sessionId}} {{text}}"
HTTP_OPTIONS = (
    "--transport",
    "http",
    "--instruct-url",
    "{baseUrl}/operator/instructions",
    "--header",
    "Authorization=Bearer caller-a",
    "--other-header",
    "Authorization=Bearer caller-b",
    # Long enough for delayed_delivery's 0.5 s, short enough that each loss a broken server shows
    # (confirmed by asking again for this long) costs little.
    "--delivery-wait",
    "2",
)
SEQ = "heartbeat.instructions.model-based"
# The cases that send an invalid call and judge how it is rejected.
ARGS = [
    "heartbeat.args.missing-idempotency-key",
    "heartbeat.args.missing-session-id",
    "heartbeat.args.progress-out-of-range",
    "heartbeat.args.status-outside-enum",
    "heartbeat.args.step-count-too-large",
    "heartbeat.args.step-index-zero",
    "heartbeat.args.step-pair",
    "heartbeat.args.unknown-property",
    "heartbeat.args.wrong-types",
]

# server file in tests/agents/mcp -> (exit code, outcomes that differ from HTTP_BASELINE)
BROKEN: dict[str, tuple[int, dict[str, str]]] = {
    "no_tool": (3, dict.fromkeys(HEARTBEAT, "unimplemented")),
    "schema_key_optional": (1, {"heartbeat.schema.required": "fail"}),
    "schema_requires_status": (1, {"heartbeat.schema.required": "fail"}),
    "schema_open": (1, {"heartbeat.schema.closed": "fail"}),
    "schema_loose_fields": (1, {"heartbeat.schema.properties": "fail"}),
    "rejects_fractional_progress": (1, {"heartbeat.args.valid-call-succeeds": "fail"}),
    # Skipping progressPercent's validation also lets a string or a boolean through.
    "accepts_progress_150": (
        1,
        {"heartbeat.args.progress-out-of-range": "fail", "heartbeat.args.wrong-types": "fail"},
    ),
    "accepts_missing_key": (1, {"heartbeat.args.missing-idempotency-key": "fail"}),
    "accepts_missing_session": (1, {"heartbeat.args.missing-session-id": "fail"}),
    "accepts_step_zero": (1, {"heartbeat.args.step-index-zero": "fail"}),
    "accepts_step_count_1001": (1, {"heartbeat.args.step-count-too-large": "fail"}),
    # Any string passes, "ACTIVE" too.
    "accepts_any_status": (
        1,
        {"heartbeat.args.status-outside-enum": "fail", "heartbeat.args.wrong-types": "fail"},
    ),
    "accepts_unknown_property": (1, {"heartbeat.args.unknown-property": "fail"}),
    "accepts_half_step_pair": (0, {"heartbeat.args.step-pair": "warn"}),
    # A wrong error code for every invalid call: each rejection case says so.
    "invalid_as_internal_error": (1, dict.fromkeys(ARGS, "fail") | {"heartbeat.args.step-pair": "warn"}),
    # No idempotency at all: the retry is executed again, and a reused key is not noticed; with no
    # replay to compare, two executions cannot be told apart (the concurrency case says so). The
    # retry is answered, which is all retry-answered asks.
    "retry_executes_again": (
        1,
        {
            "heartbeat.idempotency.not-applied-twice": "fail",
            "heartbeat.idempotency.key-reuse-different-args": "warn",
            "heartbeat.idempotency.concurrent-retry": "not-testable",
        },
    ),
    # A retry under the empty key is applied again too.
    "retry_reapplies": (
        1,
        {"heartbeat.idempotency.not-applied-twice": "fail", "heartbeat.boundary.empty-key": "fail"},
    ),
    # Deduplicating by arguments also answers a later "plain" heartbeat with an old cached page,
    # takes a key in another form with the first call's arguments for a retry, and answers two calls
    # with the same arguments alike (so executions cannot be told apart).
    "dedupe_by_arguments": (
        1,
        {
            "heartbeat.idempotency.new-key-new-call": "fail",
            "heartbeat.idempotency.key-variants": "fail",
            "heartbeat.idempotency.key-reuse-different-args": "warn",
            "heartbeat.idempotency.concurrent-retry": "not-testable",
            "heartbeat.instructions.acked-never-again": "fail",
            "heartbeat.instructions.redelivery-ends-at-ack": "fail",
            "heartbeat.instructions.retry-after-ack": "fail",
            SEQ: "fail",
        },
    ),
    "key_reuse_accepted": (0, {"heartbeat.idempotency.key-reuse-different-args": "warn"}),
    # Conflicts caught one way only (90 then 10 answers silently): the case tries both orders.
    "key_conflict_one_way": (0, {"heartbeat.idempotency.key-reuse-different-args": "warn"}),
    # Arguments compared as text: the same retry with its members in another order is refused.
    "retry_order_sensitive": (1, {"heartbeat.idempotency.retry-answered": "fail"}),
    # Nothing delivered: every instruction case fails (the isolation ones: their control is not
    # testable, a fail); the cases that also read the state still conclude through it.
    "never_delivers": (1, dict.fromkeys(INSTRUCTIONS, "fail")),
    "redelivers_acked": (
        1,
        {
            "heartbeat.instructions.acked-never-again": "fail",
            "heartbeat.instructions.redelivery-ends-at-ack": "fail",
            "heartbeat.instructions.ack-answer-omits-acked": "fail",
            "heartbeat.instructions.retry-after-ack": "fail",
            "heartbeat.overlap.concurrent-acks": "fail",
            SEQ: "fail",
        },
    ),
    # Only the latest delivery's id acknowledges: an acknowledgement sent late is ignored (the
    # overlap case acknowledges by the ids of the delivery before the last).
    "acks_latest_receipt_only": (
        1,
        {
            "heartbeat.instructions.redelivery-ends-at-ack": "fail",
            "heartbeat.overlap.concurrent-acks": "fail",
        },
    ),
    # An acknowledgement takes the rest of the queue with it, never-delivered instructions and the
    # control delivered beside the acknowledged one.
    "acks_clear_the_queue": (
        1,
        {
            "heartbeat.instructions.acked-never-again": "fail",
            "heartbeat.instructions.ack-answer-omits-acked": "fail",
            "heartbeat.instructions.retry-after-ack": "fail",
            SEQ: "fail",
        },
    ),
    "paging_skips": (1, {"heartbeat.instructions.paging": "fail", SEQ: "fail"}),
    # A string field named like a cursor that is not one (sent back, it brings nothing): the
    # instructions it skips are lost, not on a page behind an unknown cursor.
    "paging_skips_with_hint": (1, {"heartbeat.instructions.paging": "fail", SEQ: "fail"}),
    "paging_repeats": (1, {"heartbeat.instructions.paging": "fail", SEQ: "fail"}),
    # Its first page is older instructions of other sessions: the cursor case's control fails, and
    # a retried first page lists none of this session's.
    "shared_queue": (
        1,
        {
            "heartbeat.instructions.per-session": "fail",
            "heartbeat.instructions.cursor-other-session": "fail",
            "heartbeat.instructions.retry-after-ack": "not-testable",
            SEQ: "fail",
        },
    ),
    "drops_after_empty": (1, {SEQ: "fail"}),
    # The same two sequence-only bugs, in results that omit an empty list.
    "drops_after_empty_omit": (1, {SEQ: "fail"}),
    "cursor_offset_omit": (1, {SEQ: "fail"}),
    "no_ownership": (1, dict.fromkeys(ACCESS, "fail")),
    # owner >= caller: B is kept out of A's sessions, A is not kept out of B's.
    "ownership_one_way": (1, {"heartbeat.access.other-caller-rejected": "fail"}),
    "leaky_denial": (
        1,
        {"heartbeat.access.other-caller-rejected": "fail", "heartbeat.access.other-caller-replay": "fail"},
    ),
    "acks_before_access_check": (1, {"heartbeat.access.other-caller-no-change": "fail"}),
    # The protocol eras (tests/targets/mcp/test_eras.py runs them in each): over HTTP the run speaks
    # 2026-07-28, where every request is a connection of its own, so state kept on the connection
    # is lost; the other two differ from the reference in the stateless era only.
    "connection_cursor": (1, {"heartbeat.instructions.paging": "fail", SEQ: "fail"}),
    "era_dependent_retry": (0, {"heartbeat.wire.same-answers": "warn"}),
    "modern_drops_identity": (0, {"heartbeat.wire.server-identity": "warn"}),
    "other_names": (0, {}),  # pendingInstructions / nextInstructionCursor: recognised by default
    # The requirement audit's variants (cases/revisions/*.toml, `breaks`): each caught by one case.
    "accepts_numeric_strings": (1, {"heartbeat.args.wrong-types": "fail"}),
    "accepts_bool_as_integer": (1, {"heartbeat.args.wrong-types": "fail"}),
    "accepts_single_ack_id": (1, {"heartbeat.args.wrong-types": "fail"}),
    "progress_exclusive_max": (1, {"heartbeat.args.boundaries-accepted": "fail"}),
    "acks_before_validation": (1, {"heartbeat.args.rejected-changes-nothing": "fail"}),
    "rejected_call_keeps_state": (1, {"heartbeat.args.rejected-changes-nothing": "fail"}),
    "keys_case_insensitive": (1, {"heartbeat.idempotency.key-variants": "fail"}),
    "keys_trimmed": (1, {"heartbeat.idempotency.key-variants": "fail"}),
    # A fresh key refused as reused because it folds to an earlier one.
    "keys_ci_lookup": (1, {"heartbeat.idempotency.key-variants": "fail"}),
    "concurrent_retry_runs_twice": (1, {"heartbeat.idempotency.concurrent-retry": "fail"}),
    "acks_any_session": (1, {"heartbeat.instructions.ack-other-session": "fail"}),
    "cursor_names_session": (1, {"heartbeat.instructions.cursor-other-session": "fail"}),
    "session_ids_case_insensitive": (1, {"heartbeat.session.id-variants": "fail"}),
    "session_ids_trimmed": (1, {"heartbeat.session.id-variants": "fail"}),
    "session_ids_nfkc": (1, {"heartbeat.session.id-variants": "fail"}),
    # A new session refused because its id folds to an existing one (NFKC folds NFD to NFC too).
    "session_ids_collide_refused": (
        1,
        {"heartbeat.session.id-variants": "fail", "heartbeat.boundary.id-encodings": "fail"},
    ),
    "replay_before_access_check": (1, {"heartbeat.access.other-caller-replay": "fail"}),
    "cursor_is_offset": (1, {SEQ: "fail"}),  # only the sequences acknowledge pages while paging
    # -- pressure (each run with the reference's flag and the suite's matching option: ARGS) --------
    # The memory twins: a retry, another caller's refused call, counted as use.
    "lru_touched_by_retry": (1, {"heartbeat.twins.session-cap": "fail"}),
    "lru_touched_by_other_caller": (1, {"heartbeat.twins.session-cap": "fail"}),
    # The idle-expiry twins: a rejected call, another caller's call, that refresh the idle timer.
    "ttl_refreshed_by_rejected_call": (1, {"heartbeat.twins.idle-expiry": "fail"}),
    "ttl_refreshed_by_other_caller": (1, {"heartbeat.twins.idle-expiry": "fail"}),
    # The allowance twins: a retry, a rejected call, that spend the per-session allowance.
    "limit_spent_by_retry": (1, {"heartbeat.twins.request-limit": "fail"}),
    "limit_spent_by_rejected_call": (1, {"heartbeat.twins.request-limit": "fail"}),
    # -- later: left alone for the hold --------------------------------------------------------------
    "forgets_pending_instructions": (1, {"heartbeat.later.pending-held": "fail"}),
    "acks_expire": (1, {"heartbeat.later.pending-held": "fail"}),
    # -- overlap ---------------------------------------------------------------------------------------
    "acks_lost_under_overlap": (1, {"heartbeat.overlap.concurrent-acks": "fail"}),
    "ack_lost_to_delivery": (1, {"heartbeat.overlap.concurrent-acks": "fail"}),
    "lost_update_under_overlap": (1, {"heartbeat.overlap.concurrent-writes": "fail"}),
    "record_outside_the_call": (1, {"heartbeat.overlap.concurrent-writes": "fail"}),
    # -- boundaries ----------------------------------------------------------------------------------
    "session_ids_cut_at_64": (1, {"heartbeat.boundary.session-id-lengths": "fail"}),
    "session_ids_cut_at_255": (1, {"heartbeat.boundary.session-id-lengths": "fail"}),
    "keys_cut_at_64": (1, {"heartbeat.boundary.key-lengths": "fail"}),
    "instruction_text_cut_at_255": (1, {"heartbeat.boundary.instruction-lengths": "fail"}),
    "instruction_text_cut_at_1024": (1, {"heartbeat.boundary.instruction-lengths": "fail"}),
    "instruction_text_utf8mb3": (1, {"heartbeat.boundary.instruction-encodings": "fail"}),
    "instruction_text_nfkc": (1, {"heartbeat.boundary.instruction-encodings": "fail"}),
    "session_ids_url_decoded": (1, {"heartbeat.boundary.id-encodings": "fail"}),
    "session_ids_decoded_twice": (1, {"heartbeat.boundary.id-encodings": "fail"}),
    "session_ids_path_normalised": (1, {"heartbeat.boundary.id-encodings": "fail"}),
    "session_ids_nfc": (1, {"heartbeat.boundary.id-encodings": "fail"}),
    "empty_ack_clears_queue": (1, {"heartbeat.boundary.empty-ack-list": "fail"}),
    "empty_ack_acks_delivered": (1, {"heartbeat.boundary.empty-ack-list": "fail"}),
    "empty_step_ignored": (1, {"heartbeat.boundary.empty-step": "fail"}),
    "empty_key_ignored": (1, {"heartbeat.boundary.empty-key": "fail"}),
    # -- neighbours ----------------------------------------------------------------------------------
    "keys_per_caller_cache": (1, {"heartbeat.idempotency.key-across-sessions": "fail"}),
    "keys_global_cache": (1, {"heartbeat.idempotency.key-across-sessions": "fail"}),
    "retry_remarks_delivered": (1, {"heartbeat.instructions.retry-after-ack": "fail"}),
    "acks_skip_state": (1, {"heartbeat.instructions.ack-with-report": "fail"}),
    # The page built before the acknowledgement: the sequences' acked-in-answer rule sees it too.
    "ack_after_page": (1, {"heartbeat.instructions.ack-answer-omits-acked": "fail", SEQ: "fail"}),
}
# The cases that learn what an acknowledgement did from an instruction delivered again.
REDELIVERED = [
    "heartbeat.instructions.ack-other-session",
    "heartbeat.instructions.ack-answer-omits-acked",
    "heartbeat.instructions.retry-after-ack",
    "heartbeat.overlap.concurrent-acks",
]
# Conforming servers that each defeat an assumption the suite once made (a status-less heartbeat
# keeps the status, results name their fields as the reference's do, a retry's answer is the same
# bytes, pages are small…): the reference's outcomes, or ones that conclude nothing (never fail/warn).
# The sequences run where a server defeats one of their assumptions too (SEQ: "pass").
CONFORMING: dict[str, tuple[int, dict[str, str]]] = {
    "status_defaults_active": (0, {}),
    "state_nested": (0, {}),
    "replay_flagged": (0, {}),
    "instruction_message_field": (0, {}),
    "per_session_ids": (0, {}),
    "concurrent_retry_refused": (0, {}),
    "one_page": (
        0,
        {"heartbeat.instructions.paging": "n/a", "heartbeat.instructions.cursor-other-session": "n/a"},
    ),
    # No state in its results: only what the state alone shows is not testable.
    "state_not_shown": (
        0,
        dict.fromkeys(
            [
                "heartbeat.idempotency.not-applied-twice",
                "heartbeat.idempotency.new-key-new-call",
                "heartbeat.idempotency.key-variants",
                "heartbeat.idempotency.key-across-sessions",
                "heartbeat.instructions.ack-with-report",
                "heartbeat.overlap.concurrent-writes",
                "heartbeat.boundary.session-id-lengths",
                "heartbeat.boundary.key-lengths",
                "heartbeat.boundary.id-encodings",
                "heartbeat.boundary.empty-step",
                "heartbeat.boundary.empty-key",
            ],
            "not-testable",
        ),
    ),
    # Takes no session the suite makes up: whatever needs one is not testable, and says so.
    "known_sessions_only": (
        0,
        dict.fromkeys(
            [
                c
                for c in HEARTBEAT
                if not c.startswith(
                    ("heartbeat.tools.", "heartbeat.schema.", "heartbeat.wire.server-identity")
                )
            ],
            "not-testable",
        ),
    ),
    "instruction_id_named": (0, {SEQ: "pass"}),
    "instructions_page_object": (0, {SEQ: "pass"}),
    "cursor_snake": (0, {SEQ: "pass"}),
    # A cursor under a name the suite does not know: sent back, it brings the next page, so what
    # the suite did not page to is not testable, not lost.
    "cursor_unknown_name": (
        0,
        dict.fromkeys(
            [SEQ, "heartbeat.instructions.paging", "heartbeat.instructions.cursor-other-session"],
            "not-testable",
        ),
    ),
    "delayed_delivery": (0, {SEQ: "pass"}),
    "prefixed_text": (0, {SEQ: "pass"}),
    "omit_empty": (0, {SEQ: "pass"}),
    # Redelivery is a MAY: an instruction delivered once (or hidden 30 s) is not lost; what an
    # acknowledgement did shows only through an instruction delivered again, which never comes.
    "delivers_once": (0, dict.fromkeys(REDELIVERED, "not-testable") | {SEQ: "pass"}),
    "visibility_timeout": (
        0,
        dict.fromkeys(REDELIVERED, "not-testable") | {SEQ: "pass", "heartbeat.later.pending-held": "pass"},
    ),
    "schema_status_ref": (0, {}),
    "schema_typebox": (0, {}),
    "schema_equivalent_forms": (0, {}),
    "current_view_retry": (0, {}),
    "strict_id_formats": (0, {}),
    # Ids scoped per caller: B's heartbeat on A's id is B's own session (once a failure).
    "caller_scoped_ids": (0, {}),
    "newest_first": (0, {"heartbeat.later.pending-held": "pass", SEQ: "pass"}),
    "slow_serialised": (0, {}),
    # Evicts by creation, not use (run with a cap): an honest policy, never taken for a side effect.
    "evicts_by_creation": (0, {"heartbeat.twins.session-cap": "pass"}),
    "names_its_wire": (0, {}),
}
# The reference's flags (server) and the suite's matching options a variant runs with.
CAP = (("--session-cap", "16"), ("--mcp-session-cap", "16"))
TTL = (("--session-ttl", "2"), ("--mcp-session-ttl", "2"))
LIMIT = (("--request-limit", "20"), ("--mcp-request-limit", "20"))
ARGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "lru_touched_by_retry": CAP,
    "lru_touched_by_other_caller": CAP,
    "evicts_by_creation": CAP,
    "ttl_refreshed_by_rejected_call": TTL,
    "ttl_refreshed_by_other_caller": TTL,
    "limit_spent_by_retry": LIMIT,
    "limit_spent_by_rejected_call": LIMIT,
    # Nothing it is given ever arrives: each instruction case confirms the loss by asking again for
    # --delivery-wait, and half a second shows it as two do.
    "never_delivers": ((), ("--delivery-wait", "0.5")),
}
# The cases a server can touch (runner -k, by id prefix): it runs only those, and the
# exact-outcomes check covers that selection. Servers not named here: see selected().
SELECTION: dict[str, tuple[str, ...]] = {
    "accepts_numeric_strings": ("heartbeat.args",),
    "accepts_bool_as_integer": ("heartbeat.args",),
    "accepts_single_ack_id": ("heartbeat.args",),
    "progress_exclusive_max": ("heartbeat.args",),
    "acks_before_validation": ("heartbeat.args",),
    "rejected_call_keeps_state": ("heartbeat.args",),
    "keys_case_insensitive": ("heartbeat.idempotency",),
    "keys_trimmed": ("heartbeat.idempotency",),
    "concurrent_retry_runs_twice": ("heartbeat.idempotency",),
    "acks_any_session": ("heartbeat.instructions",),
    "cursor_names_session": ("heartbeat.instructions",),
    "session_ids_case_insensitive": ("heartbeat.session",),
    "session_ids_trimmed": ("heartbeat.session",),
    "session_ids_nfkc": ("heartbeat.session",),
    "replay_before_access_check": ("heartbeat.access",),
    "cursor_is_offset": ("heartbeat.instructions",),
    "replay_flagged": ("heartbeat.idempotency",),
    "concurrent_retry_refused": ("heartbeat.idempotency",),
    "instruction_message_field": ("heartbeat.instructions", "heartbeat.access", "heartbeat.args", SEQ),
    "per_session_ids": ("heartbeat.instructions", "heartbeat.access", "heartbeat.args", "heartbeat.session"),
    "one_page": ("heartbeat.instructions",),
    "keys_ci_lookup": ("heartbeat.idempotency",),
    "schema_status_ref": ("heartbeat.tools", "heartbeat.schema"),
    "schema_typebox": ("heartbeat.tools", "heartbeat.schema"),
    "schema_equivalent_forms": ("heartbeat.tools", "heartbeat.schema", "heartbeat.args"),
    "current_view_retry": ("heartbeat.idempotency", "heartbeat.access"),
    "strict_id_formats": ("heartbeat.idempotency", "heartbeat.session", "heartbeat.args"),
    "names_its_wire": ("heartbeat.wire", "heartbeat.idempotency"),
    "instruction_id_named": (
        "heartbeat.instructions",
        "heartbeat.access",
        "heartbeat.args",
        "heartbeat.session",
    ),
    "instructions_page_object": ("heartbeat.instructions", "heartbeat.args", "heartbeat.session"),
    "cursor_snake": ("heartbeat.instructions",),
    "cursor_unknown_name": ("heartbeat.instructions",),
    "prefixed_text": ("heartbeat.instructions", "heartbeat.args", "heartbeat.session"),
    "delayed_delivery": ("heartbeat.instructions", "heartbeat.access", "heartbeat.args", "heartbeat.session"),
    # Pressure variants run with a policy that would disturb other cases (a 2 s time to live).
    "lru_touched_by_retry": ("heartbeat.twins",),
    "lru_touched_by_other_caller": ("heartbeat.twins",),
    "ttl_refreshed_by_rejected_call": ("heartbeat.twins",),
    "ttl_refreshed_by_other_caller": ("heartbeat.twins",),
    "limit_spent_by_retry": ("heartbeat.twins",),
    "limit_spent_by_rejected_call": ("heartbeat.twins",),
    "evicts_by_creation": ("heartbeat.twins",),
    "caller_scoped_ids": ("heartbeat.access", "heartbeat.twins", "heartbeat.idempotency"),
    "newest_first": (
        "heartbeat.instructions",
        "heartbeat.boundary",
        "heartbeat.overlap",
        "heartbeat.later",
        SEQ,
    ),
    # Calls that wait 0.2 s on their storage: the cases that send calls together.
    "acks_lost_under_overlap": ("heartbeat.overlap",),
    "ack_lost_to_delivery": ("heartbeat.overlap",),
    "lost_update_under_overlap": ("heartbeat.overlap",),
    "record_outside_the_call": ("heartbeat.overlap",),
    # Every call 30 ms, one at a time: the cases that send calls together.
    "slow_serialised": ("heartbeat.overlap", "heartbeat.idempotency"),
}


def areas(delta: dict[str, str]) -> tuple[str, ...]:
    """The spec areas (heartbeat.args, heartbeat.idempotency, …) of the cases a delta names."""
    return tuple(sorted({".".join(c.split(".")[:2]) + "." for c in delta}))


def sole_catchers() -> set[str]:
    """For each case, the first broken server (of those not in SELECTION) whose delta is that case
    alone: it runs every case, which shows that this case, and no other, catches it."""
    first: dict[str, str] = {}
    for server, (_, delta) in BROKEN.items():
        if len(delta) == 1 and server not in SELECTION:
            first.setdefault(next(iter(delta)), server)
    return set(first.values())


SOLE_CATCHERS = sole_catchers()


def selected(server: str, delta: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The cases a server runs and their expected outcomes: its selection's; every case but the
    expensive ones not in its delta (guarded()) for a conforming server (it must pass everywhere)
    and a case's sole catcher; else the areas of its delta (nothing else there moves)."""
    cases, expected = guarded(HTTP_BASELINE, delta)
    prefixes = SELECTION.get(server)
    if prefixes is None and server in BROKEN and server not in SOLE_CATCHERS:
        prefixes = areas(delta)
    if prefixes is None:
        return cases, expected
    chosen = [c for c in cases if c.startswith(prefixes)]
    return chosen, {c: expected[c] for c in chosen}


# Hand-written on stdio (no SDK): results the SDK would not let the reference build. They speak
# the handshake era only: the cases that compare the eras, or need the stateless one, are n/a.
HANDSHAKE_ONLY = dict.fromkeys(["heartbeat.wire.same-answers", "heartbeat.wire.server-identity"], "n/a")
STDIO_BROKEN = {
    "result_not_tool_result": (1, {"heartbeat.result.shape": "fail"} | HANDSHAKE_ONLY),
    # The schema cases read the same (non-object) schema, so they fail with it.
    "schema_not_object": (
        1,
        dict.fromkeys(
            [
                "heartbeat.tools.listed",
                "heartbeat.schema.closed",
                "heartbeat.schema.properties",
                "heartbeat.schema.required",
            ],
            "fail",
        )
        | HANDSHAKE_ONLY,
    ),
}
MESSAGES = {
    "invalid_as_internal_error": ("heartbeat.args.unknown-property", "JSON-RPC error -32603"),
    "leaky_denial": ("heartbeat.access.other-caller-rejected", "reveals caller A's session"),
    "drops_after_empty": (SEQ, "missing from a full drain"),
    "keys_ci_lookup": ("heartbeat.idempotency.key-variants", "refused"),
    "session_ids_collide_refused": ("heartbeat.session.id-variants", "refused"),
}


def _server(name: str) -> str:
    flags = ARGS.get(name, ((), ()))[0]
    return python_command(str(MCP_AGENTS / f"{name}.py"), "--http", "127.0.0.1:0", *flags)


def _options(name: str) -> tuple[str, ...]:
    return (*HTTP_OPTIONS, *ARGS.get(name, ((), ()))[1])


@pytest.mark.slow
@pytest.mark.parametrize("server", sorted(BROKEN))
def test_broken_server_gets_exactly_its_outcomes(server: str, direct) -> None:
    code, delta = BROKEN[server]
    cases, expected = selected(server, delta)
    run = direct("--mcp-cmd", _server(server), *_options(server), cases=cases)
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == code, run.stderr[-2000:]
    assert run.report["target"] == "mcp"
    if server in MESSAGES:
        case_id, text = MESSAGES[server]
        assert text in run.case(case_id)["message"]
    run.assert_explained(delta)


@pytest.mark.slow
@pytest.mark.parametrize("server", sorted(CONFORMING))
def test_conforming_server_gets_the_references_outcomes(server: str, direct) -> None:
    code, delta = CONFORMING[server]
    assert not {o for o in delta.values() if o in ("fail", "warn")}, (
        "a conforming server never fails or warns"
    )
    cases, expected = selected(server, delta)
    run = direct("--mcp-cmd", _server(server), *_options(server), cases=cases)
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == code, run.stderr[-2000:]


# The reference's machinery, each part on by its own flag, with the suite's matching option: the
# reference stays conformant, and the twins that need the policy run (the cheap cases, as a guard).
FEATURES: dict[str, tuple[tuple[str, ...], tuple[str, ...], dict[str, str]]] = {
    "session-cap": (
        ("--session-cap", "24"),
        ("--mcp-session-cap", "24"),
        {"heartbeat.twins.session-cap": "pass"},
    ),
    "session-ttl": (
        ("--session-ttl", "2"),
        ("--mcp-session-ttl", "2"),
        {"heartbeat.twins.idle-expiry": "pass", "heartbeat.later.pending-held": "pass"},
    ),
    "request-limit": (
        ("--request-limit", "60"),
        ("--mcp-request-limit", "60"),
        {"heartbeat.twins.request-limit": "pass"},
    ),
    "io-delay": (("--io-delay", "0.005"), (), {}),
    "max-length": (("--max-length", "1024"), (), {}),
}


@pytest.mark.slow
@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_reference_with_each_feature_is_certified(feature: str, direct) -> None:
    flags, options, delta = FEATURES[feature]
    cases, expected = guarded(HTTP_BASELINE, delta)
    server = python_command("-m", "conformance.reference.mcp.server", "--http", "127.0.0.1:0", *flags)
    run = direct("--mcp-cmd", server, *HTTP_OPTIONS, *options, cases=cases)
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == 0, run.stderr[-2000:]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("server", "rule"), [("drops_after_empty", "lost"), ("cursor_is_offset", "cursor-skip")]
)
def test_sequences_find_a_sequence_only_bug_with_every_seed(server: str, rule: str, tmp_path) -> None:
    """The ci profile's sequence case finds each bug only it can find, with every seed 0..9: that
    case alone, seed after seed, in one process against one server (a runner per seed costs ten
    process starts for ten one-second cases); the first seed that misses ends the test."""
    config = AgentConfig(
        command=[sys.executable, str(MCP_AGENTS / f"{server}.py"), "--http", "127.0.0.1:0"],
        cwd=str(tmp_path),
        target="mcp",
        transport="http",
        profile="ci",
        target_options=McpOptions(instruct_url="{baseUrl}/operator/instructions", delivery_wait=0.5),
    )
    runtime, checked = Runtime(config), revisions.current().name
    revisions.use("mcp-session-heartbeat-2025-06-18")
    try:
        runtime.start()
        for seed in range(10):
            config.seed = seed
            result = runtime.run_case(CASES[SEQ]).result
            assert (result.outcome, result.rule) == (Outcome.FAIL, rule), f"seed {seed}: {result.message}"
    finally:
        runtime.close()
        revisions.use(checked)


def test_the_audit_names_variants_that_fail_their_checks() -> None:
    deltas = expected_by_variant(BROKEN | STDIO_BROKEN, prefix="mcp/")
    assert check_variants_catch("mcp", deltas, prefix="mcp/") == []


@pytest.mark.parametrize("server", sorted(STDIO_BROKEN))
def test_stdio_broken_server_gets_exactly_its_outcomes(server: str, direct) -> None:
    code, delta = STDIO_BROKEN[server]
    cases, expected = guarded(STDIO_BASELINE, delta)
    run = direct(
        "--mcp-cmd",
        python_command(str(MCP_AGENTS / f"{server}.py")),
        "--instruct-cmd",
        REFERENCE_INSTRUCT_CMD,
        cases=cases,
    )
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == code


# The reference server over stdio, every case: tests/e2e/test_readme_commands.py
# runs it as the README's `--target mcp`.


def test_reference_server_is_certified_over_http(direct) -> None:
    run = direct(
        "--mcp-cmd",
        python_command("-m", "conformance.reference.mcp.server", "--http", "127.0.0.1:0"),
        *HTTP_OPTIONS,
    )
    assert run.outcomes == HTTP_BASELINE, run.diff(HTTP_BASELINE)
    assert run.code == 0, run.stderr
    rejected = run.case("heartbeat.access.other-caller-rejected")
    assert any(f.get("conn") == "B" for f in rejected["transcript"]), "caller B's frames are labelled"
    report = json.dumps(run.report)
    assert "Bearer conformance-" not in report, "credentials are redacted"


# A server already listening (--mcp-url, two callers, the operator endpoint): tests/e2e/test_readme_commands.py
# runs it as the README's `--mcp-url …`.


def test_without_an_operator_hook_instruction_cases_are_not_testable(direct) -> None:
    run = direct("--mcp-cmd", python_command("-m", "conformance.reference.mcp.server"))
    expected = STDIO_BASELINE | dict.fromkeys(INSTRUCTIONS + HOOKED, "not-testable")
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == 0
    assert "--instruct-cmd" in run.case("heartbeat.instructions.delivered")["message"]
    assert "--mcp-session-cap" in run.case("heartbeat.twins.session-cap")["message"]
    counted = len(INSTRUCTIONS) + len(HOOKED) + len(ACCESS) + len(TWINS)
    assert run.report["counts"]["by_outcome"]["not-testable"] == counted


def test_result_paths_are_configurable(direct) -> None:
    server = python_command(str(MCP_AGENTS / "custom_result_shape.py"))
    hook = ("--instruct-cmd", REFERENCE_INSTRUCT_CMD)
    blind = direct("--mcp-cmd", server, *hook)
    message = blind.case("heartbeat.instructions.delivered")["message"]
    assert blind.outcomes["heartbeat.instructions.delivered"] == "not-testable"
    assert "queue" in message and "--instructions-path" in message  # names what the result has
    told = direct(
        "--mcp-cmd", server, *hook, "--instructions-path", "/queue/items", "--cursor-path", "/queue/after"
    )
    assert told.outcomes == STDIO_BASELINE, told.diff(STDIO_BASELINE)


def test_failing_sequence_replays(suite, tmp_path) -> None:
    run = suite(
        "--mcp-cmd",
        python_command(str(MCP_AGENTS / "redelivers_acked.py")),
        "--instruct-cmd",
        REFERENCE_INSTRUCT_CMD,
        "-k",
        SEQ,
    )
    replay = run.case(SEQ)["details"]["replay_file"]
    assert len(run.case(SEQ)["details"]["steps"]) <= 5  # shrunk: enqueue, a delivery, an ack, a delivery
    still = _replay(replay)
    assert still.returncode == 1 and "STILL FAILING" in still.stdout
    fixed = _replay(replay, "--agent", f"{sys.executable} -m conformance.reference.mcp.server")
    assert fixed.returncode == 0 and "FIXED" in fixed.stdout


def test_usage_errors_are_one_line(suite) -> None:
    bad_pointer = suite("--target", "mcp", "--instructions-path", "instructions")
    assert bad_pointer.code == 2 and "is not a JSON Pointer" in bad_pointer.stderr
    wrong_spec = suite("--target", "mcp", "--spec", "rfd-2026-10-26")
    assert wrong_spec.code == 2 and "revision of the acp target" in wrong_spec.stderr
    bad_hook = suite("--target", "mcp", "--instruct-cmd", "enqueue {sessionId}")
    assert bad_hook.code == 2 and "{text}" in bad_hook.stderr


def test_every_heartbeat_case_is_caught_by_a_broken_server() -> None:
    caught = {
        c for _, delta in (BROKEN | STDIO_BROKEN).values() for c, o in delta.items() if o in ("fail", "warn")
    }
    assert set(HEARTBEAT) - caught == set()


def test_every_mcp_server_is_listed() -> None:
    files = {p.stem for p in MCP_AGENTS.glob("*.py") if not p.name.startswith("_")}
    assert files == set(BROKEN) | set(STDIO_BROKEN) | set(CONFORMING) | {"custom_result_shape"}


def _replay(path: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "runner.py"), "replay", path, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )

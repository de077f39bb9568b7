"""The MCP target: the reference server is certified over stdio and Streamable HTTP, and every
heartbeat case is shown to fail by a broken server in tests/agents/mcp built for it."""

from __future__ import annotations

import json
import subprocess
import sys

import conformance.cases as cases
import pytest

from conformance.core import revisions
from conformance.core.config import AgentConfig
from conformance.core.outcomes import Outcome
from conformance.core.registry import CASES
from conformance.runtime import Runtime
from conformance.targets.mcp.options import McpOptions
from tests.conftest import AGENTS, ROOT, python_command, revision_kept
from tests.variants import Table, Variant, agent_path, audit_not_backed, by_area, certify, uncaught, unlisted

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
    "heartbeat.overlap.enqueue-in-flight",
    "heartbeat.boundary.instruction-lengths",
    "heartbeat.boundary.instruction-encodings",
    "heartbeat.boundary.empty-ack-list",
    "heartbeat.volume.many-pending",
]
# Over Streamable HTTP, with two callers and the operator endpoint, every case runs; the twins
# need the server's policies (--mcp-session-cap, --mcp-session-ttl, --mcp-request-limit).
# A slow reader is a stdio matter: over HTTP each request has a response of its own.
SLOW_READER = "heartbeat.wire.slow-reader"
# The reference offers nothing besides its tool: no other surface for caller B to read.
OTHER_SURFACES = "heartbeat.access.other-surfaces"
CONNECTION_END = "heartbeat.access.connection-end-keeps-state"
# The reference attaches SSE event ids only with --resumable.
EVENT_IDS = "heartbeat.wire.event-ids-unique"
HTTP_BASELINE = (
    dict.fromkeys(HEARTBEAT, "pass")
    | dict.fromkeys(TWINS, "not-testable")
    | {SLOW_READER: "n/a", OTHER_SURFACES: "n/a", EVENT_IDS: "n/a"}
)
# Over stdio there is one caller: the access cases say what to pass instead.
STDIO_BASELINE = HTTP_BASELINE | dict.fromkeys(ACCESS, "not-testable") | {SLOW_READER: "pass"}
# The ci profile enqueues its hundred-odd instructions through a URL hook only (a command hook
# starts a process for each).
STDIO_BASELINE |= {"heartbeat.volume.many-pending": "not-testable"}
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
PROGRESS = "heartbeat.wire.progress-ends-with-call"
SURFACE = "heartbeat.surface.twin-sequences"
VOLUME = "heartbeat.volume.many-pending"
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

# Server file in tests/agents/mcp -> its exit code and the outcomes that differ from HTTP_BASELINE,
# over Streamable HTTP (HTTP_BROKEN). One with no focus runs the areas of its delta, or every cheap
# case if it is a case's sole catcher (by_area()).
BROKEN: dict[str, Variant] = {
    "no_tool": Variant(3, dict.fromkeys(HEARTBEAT, "unimplemented")),
    # An outputSchema whose currentStep has maxLength 256, the inputSchema none: a longer step is
    # returned whole, against the tool's own outputSchema (blind 14, certified before).
    "output_schema_step_limit": Variant(
        1,
        {"heartbeat.result.shape": "fail"},
        focus="heartbeat.result",
        rule=("heartbeat.result.shape", "inputs"),
    ),
    # Instruction texts over 1024 characters delivered whole against an outputSchema that bounds
    # them: only a result that delivers one breaks it (every result is checked).
    "output_schema_text_limit": Variant(
        1, {"heartbeat.boundary.instruction-lengths": "fail"}, focus="heartbeat.boundary or heartbeat.result"
    ),
    # Twin sequences over the server's surface: a tool name it does not list, another tool it lists.
    "any_tool_heartbeats": Variant(1, {SURFACE: "fail"}, rule=(SURFACE, "unlisted")),
    "summary_tool_acknowledges": Variant(1, {SURFACE: "fail"}, rule=(SURFACE, "tool")),
    "inbox_resource_acknowledges": Variant(1, {SURFACE: "fail"}, rule=(SURFACE, "resources")),
    # resources/list shows every caller's sessions and steps (blind round 18's class).
    "resource_list_unscoped": Variant(1, {OTHER_SURFACES: "fail"}),
    # Volume and repetition: the oldest of 120 pending pushed out; the same text twice delivered once.
    "ring_buffer_100": Variant(1, {VOLUME: "fail"}, message=(VOLUME, "never delivered")),
    # The same buffer behind an allowance of 60 heartbeats and pages of 2, stated to the suite: the
    # volume is what the allowance drains (108 instructions), still past the buffer.
    "ring_buffer_100/request-limit": Variant(
        1,
        {VOLUME: "fail"},
        message=(VOLUME, "never delivered"),
        agent_args=("--request-limit", "60"),
        args=("--mcp-request-limit", "60"),
    ),
    "ids_from_text_hash": Variant(1, {VOLUME: "fail"}, message=(VOLUME, "not two")),
    # The MCP lifecycle: initialize asking for a revision nobody supports is answered with it.
    "echoes_protocol_version": Variant(1, {"heartbeat.wire.version-negotiation": "fail"}),
    # Streamable HTTP's resumability: each stream's events numbered from 1, at default options (the
    # handshake era on a connection of its own).
    "event_ids_per_stream": Variant(
        1, {EVENT_IDS: "fail"}, focus="heartbeat.wire", agent_args=("--resumable",)
    ),
    # Log notifications sent without the logging capability declared.
    "logs_without_capability": Variant(1, {"heartbeat.wire.notifications-declared": "fail"}),
    # Progress for a heartbeat's token 50 ms after its result (seen on the handshake era's GET stream).
    "progress_after_result": Variant(1, {PROGRESS: "fail"}),
    "schema_key_optional": Variant(1, {"heartbeat.schema.required": "fail"}),
    "schema_requires_status": Variant(1, {"heartbeat.schema.required": "fail"}),
    "schema_open": Variant(1, {"heartbeat.schema.closed": "fail"}),
    # Its schema offers a status value its validation refuses: any-status sends each one.
    "schema_loose_fields": Variant(
        1, {"heartbeat.schema.properties": "fail", "heartbeat.instructions.any-status": "fail"}
    ),
    "rejects_fractional_progress": Variant(
        1, {"heartbeat.args.valid-call-succeeds": "fail", "heartbeat.instructions.ack-with-report": "fail"}
    ),
    # Skipping progressPercent's validation also lets a string or a boolean through.
    "accepts_progress_150": Variant(
        1,
        {"heartbeat.args.progress-out-of-range": "fail", "heartbeat.args.wrong-types": "fail"},
    ),
    "accepts_missing_key": Variant(1, {"heartbeat.args.missing-idempotency-key": "fail"}),
    "accepts_missing_session": Variant(1, {"heartbeat.args.missing-session-id": "fail"}),
    "accepts_step_zero": Variant(1, {"heartbeat.args.step-index-zero": "fail"}),
    "accepts_step_count_1001": Variant(1, {"heartbeat.args.step-count-too-large": "fail"}),
    # Any string passes, "ACTIVE" too.
    "accepts_any_status": Variant(
        1,
        {"heartbeat.args.status-outside-enum": "fail", "heartbeat.args.wrong-types": "fail"},
    ),
    "accepts_unknown_property": Variant(1, {"heartbeat.args.unknown-property": "fail"}),
    "accepts_half_step_pair": Variant(0, {"heartbeat.args.step-pair": "warn"}),
    # A wrong error code for every invalid call: each rejection case says so.
    "invalid_as_internal_error": Variant(
        1,
        dict.fromkeys(ARGS, "fail") | {"heartbeat.args.step-pair": "warn"},
        message=("heartbeat.args.unknown-property", "JSON-RPC error -32603"),
    ),
    # No idempotency at all: the retry is executed again, and a reused key is not noticed; with no
    # replay to compare, two executions cannot be told apart (the concurrency case says so). The
    # retry is answered, which is all retry-answered asks.
    "retry_executes_again": Variant(
        1,
        {
            "heartbeat.idempotency.not-applied-twice": "fail",
            "heartbeat.idempotency.key-reuse-different-args": "warn",
            "heartbeat.idempotency.concurrent-retry": "not-testable",
        },
    ),
    # A retry under the empty key is applied again too.
    "retry_reapplies": Variant(
        1,
        {"heartbeat.idempotency.not-applied-twice": "fail", "heartbeat.boundary.empty-key": "fail"},
    ),
    # Deduplicating by arguments also answers a later "plain" heartbeat with an old cached page,
    # takes a key in another form with the first call's arguments for a retry, and answers two calls
    # with the same arguments alike (so executions cannot be told apart).
    "dedupe_by_arguments": Variant(
        1,
        {
            "heartbeat.instructions.any-status": "fail",
            "heartbeat.idempotency.new-key-new-call": "fail",
            "heartbeat.idempotency.key-variants": "fail",
            "heartbeat.idempotency.key-reuse-different-args": "warn",
            "heartbeat.idempotency.concurrent-retry": "not-testable",
            "heartbeat.instructions.acked-never-again": "fail",
            "heartbeat.instructions.ack-some": "fail",
            "heartbeat.instructions.redelivery-ends-at-ack": "fail",
            "heartbeat.instructions.retry-after-ack": "fail",
            SEQ: "fail",
        },
    ),
    "key_reuse_accepted": Variant(0, {"heartbeat.idempotency.key-reuse-different-args": "warn"}),
    # Conflicts caught one way only (90 then 10 answers silently): the case tries both orders.
    "key_conflict_one_way": Variant(0, {"heartbeat.idempotency.key-reuse-different-args": "warn"}),
    # Arguments compared as text: the same retry with its members in another order is refused.
    "retry_order_sensitive": Variant(1, {"heartbeat.idempotency.retry-answered": "fail"}),
    # Nothing delivered: every instruction case fails (the isolation ones: their control is not
    # testable, a fail); the cases that also read the state still conclude through it.
    # Nothing it is given ever arrives: each instruction case confirms the loss by asking again for
    # --delivery-wait, and half a second shows it as two do.
    "never_delivers": Variant(1, dict.fromkeys(INSTRUCTIONS, "fail"), args=("--delivery-wait", "0.5")),
    # SHOULD only: the text block lacks the instructions structuredContent carries.
    "text_drops_instructions": Variant(
        0, {"heartbeat.result.text-mirrors-structured": "warn"}, focus="result"
    ),
    # SHOULD only: the text block's strings cut at 160 characters (blind 17, certified under --strict).
    "text_strings_cut_at_160": Variant(
        0, {"heartbeat.result.text-mirrors-structured": "warn"}, focus="heartbeat.result"
    ),
    "blocked_withholds": Variant(
        1,
        {"heartbeat.instructions.any-status": "fail"},
        focus="instructions",
        args=("--delivery-wait", "0.5"),
    ),
    "early_instructions_lost": Variant(
        1,
        {"heartbeat.instructions.any-status": "fail"},
        focus="instructions",
        args=("--delivery-wait", "0.5"),
    ),
    "redelivers_acked": Variant(
        1,
        {
            "heartbeat.instructions.ack-some": "fail",
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
    "acks_latest_receipt_only": Variant(
        1,
        {
            "heartbeat.instructions.ack-some": "fail",
            "heartbeat.instructions.redelivery-ends-at-ack": "fail",
            "heartbeat.overlap.concurrent-acks": "fail",
        },
    ),
    # An acknowledgement takes the rest of the queue with it, never-delivered instructions and the
    # control delivered beside the acknowledged one.
    "acks_clear_the_queue": Variant(
        1,
        {
            "heartbeat.instructions.ack-some": "fail",
            "heartbeat.instructions.acked-never-again": "fail",
            "heartbeat.instructions.ack-answer-omits-acked": "fail",
            "heartbeat.instructions.retry-after-ack": "fail",
            SEQ: "fail",
        },
    ),
    # Three pending instructions take two pages: ack-some loses one before it acknowledges.
    "paging_skips": Variant(
        1, {"heartbeat.instructions.paging": "fail", SEQ: "fail", "heartbeat.instructions.ack-some": "fail"}
    ),
    # A string field named like a cursor that is not one (sent back, it brings nothing): the
    # instructions it skips are lost, not on a page behind an unknown cursor.
    "paging_skips_with_hint": Variant(
        1, {"heartbeat.instructions.paging": "fail", SEQ: "fail", "heartbeat.instructions.ack-some": "fail"}
    ),
    "paging_repeats": Variant(1, {"heartbeat.instructions.paging": "fail", SEQ: "fail"}),
    # Its first page is older instructions of other sessions: the cursor case's control fails, and
    # a retried first page lists none of this session's.
    "shared_queue": Variant(
        1,
        {
            "heartbeat.instructions.per-session": "fail",
            "heartbeat.instructions.cursor-other-session": "fail",
            "heartbeat.instructions.retry-after-ack": "not-testable",
            SEQ: "fail",
        },
    ),
    # The in-flight case's acknowledging round acknowledges all a session had, then enqueues.
    "drops_after_empty": Variant(
        1,
        {SEQ: "fail", "heartbeat.overlap.enqueue-in-flight": "fail"},
        message=("heartbeat.instructions.model-based", "missing from a full drain"),
    ),
    # The same two bugs, in results that omit an empty list.
    "drops_after_empty_omit": Variant(1, {SEQ: "fail", "heartbeat.overlap.enqueue-in-flight": "fail"}),
    "cursor_offset_omit": Variant(1, {SEQ: "fail"}),
    # The same caller on a second connection is the same owner there too: those cases pass.
    # Both first heartbeats for one new id taken into one session: each caller reads the other's step.
    "no_ownership": Variant(
        1,
        dict.fromkeys([c for c in ACCESS if ".other-caller-" in c], "fail")
        | {"heartbeat.access.first-calls-together": "fail"},
    ),
    # owner >= caller: B is kept out of A's sessions, A is not kept out of B's.
    # B kept out of A's sessions, A let into B's: where B's first call creates, A's lands in it.
    "ownership_one_way": Variant(
        1, {"heartbeat.access.other-caller-rejected": "fail", "heartbeat.access.first-calls-together": "fail"}
    ),
    # The loser of two first heartbeats together is refused with the winner's step.
    "leaky_denial": Variant(
        1,
        {
            "heartbeat.access.other-caller-rejected": "fail",
            "heartbeat.access.other-caller-replay": "fail",
            "heartbeat.access.first-calls-together": "fail",
        },
        message=("heartbeat.access.other-caller-rejected", "reveals caller A's session"),
    ),
    "acks_before_access_check": Variant(1, {"heartbeat.access.other-caller-no-change": "fail"}),
    # The protocol eras (tests/targets/mcp/test_eras.py runs them in each): over HTTP the run speaks
    # 2026-07-28, where every request is a connection of its own, so state kept on the connection
    # is lost; the other two differ from the reference in the stateless era only.
    "connection_cursor": Variant(
        1, {"heartbeat.instructions.paging": "fail", SEQ: "fail", "heartbeat.instructions.ack-some": "fail"}
    ),
    "era_dependent_retry": Variant(0, {"heartbeat.wire.same-answers": "warn"}),
    "modern_drops_identity": Variant(0, {"heartbeat.wire.server-identity": "warn"}),
    # Acknowledgements dropped in the handshake era only: the run speaks 2026-07-28 over HTTP, and
    # acked-never-again repeats itself on a handshake-era connection.
    "handshake_era_ignores_acks": Variant(
        1, {"heartbeat.instructions.acked-never-again": "fail", "heartbeat.instructions.ack-some": "fail"}
    ),
    "other_names": Variant(0, {}),  # pendingInstructions / nextInstructionCursor: recognised by default
    # The requirement audit's variants (cases/revisions/*.toml, `breaks`): each caught by one case.
    "accepts_numeric_strings": Variant(1, {"heartbeat.args.wrong-types": "fail"}, focus="heartbeat.args"),
    "accepts_bool_as_integer": Variant(1, {"heartbeat.args.wrong-types": "fail"}, focus="heartbeat.args"),
    "accepts_single_ack_id": Variant(1, {"heartbeat.args.wrong-types": "fail"}, focus="heartbeat.args"),
    "progress_exclusive_max": Variant(
        1, {"heartbeat.args.boundaries-accepted": "fail"}, focus="heartbeat.args"
    ),
    # A strict integer check after the schema's: 3.0 is refused (a SHOULD: the dialect is unnamed).
    "integral_floats_refused": Variant(
        0, {"heartbeat.args.integral-numbers": "warn"}, focus="heartbeat.args"
    ),
    "acks_before_validation": Variant(
        1, {"heartbeat.args.rejected-changes-nothing": "fail"}, focus="heartbeat.args"
    ),
    "rejected_call_keeps_state": Variant(
        1, {"heartbeat.args.rejected-changes-nothing": "fail"}, focus="heartbeat.args"
    ),
    "keys_case_insensitive": Variant(
        1, {"heartbeat.idempotency.key-variants": "fail"}, focus="heartbeat.idempotency"
    ),
    "keys_trimmed": Variant(1, {"heartbeat.idempotency.key-variants": "fail"}, focus="heartbeat.idempotency"),
    # A fresh key refused as reused because it folds to an earlier one.
    "keys_ci_lookup": Variant(
        1,
        {"heartbeat.idempotency.key-variants": "fail"},
        focus="heartbeat.idempotency",
        message=("heartbeat.idempotency.key-variants", "refused"),
    ),
    "concurrent_retry_runs_twice": Variant(
        1, {"heartbeat.idempotency.concurrent-retry": "fail"}, focus="heartbeat.idempotency"
    ),
    "acks_any_session": Variant(
        1, {"heartbeat.instructions.ack-other-session": "fail"}, focus="heartbeat.instructions"
    ),
    "cursor_names_session": Variant(
        1, {"heartbeat.instructions.cursor-other-session": "fail"}, focus="heartbeat.instructions"
    ),
    "session_ids_case_insensitive": Variant(
        1, {"heartbeat.session.id-variants": "fail"}, focus="heartbeat.session"
    ),
    "session_ids_trimmed": Variant(1, {"heartbeat.session.id-variants": "fail"}, focus="heartbeat.session"),
    "session_ids_nfkc": Variant(1, {"heartbeat.session.id-variants": "fail"}, focus="heartbeat.session"),
    # Sessions keyed by SQLite NUMERIC affinity: "007", "7", "+7", "7.0" are one session.
    "session_ids_numeric_affinity": Variant(
        1, {"heartbeat.session.id-variants": "fail"}, focus="heartbeat.session"
    ),
    # A new session refused because its id folds to an existing one (NFKC folds NFD to NFC too).
    "session_ids_collide_refused": Variant(
        1,
        {"heartbeat.session.id-variants": "fail", "heartbeat.boundary.id-encodings": "fail"},
        message=("heartbeat.session.id-variants", "refused"),
    ),
    "replay_before_access_check": Variant(
        1, {"heartbeat.access.other-caller-replay": "fail"}, focus="heartbeat.access"
    ),
    # A storage round trip's lock keyed by caller and session: two first heartbeats sent together
    # both create (blind round 21's mcp_owner_race).
    "lock_per_caller": Variant(
        1,
        {"heartbeat.access.first-calls-together": "fail"},
        focus="heartbeat.access",
        agent_args=("--io-delay", "0.2"),
    ),
    # The run speaks 2026-07-28, with no protocol session: both cases catch it over 2025-06-18.
    "caller_per_connection": Variant(
        1,
        {
            "heartbeat.access.same-caller-reconnect": "fail",
            "heartbeat.access.same-caller-retry": "fail",
            CONNECTION_END: "fail",
        },
        focus="heartbeat.access",
        message=("heartbeat.access.same-caller-reconnect", "over MCP 2025-06-18"),
    ),
    # A connection's end (its DELETE) releases the caller's sessions, or only its stored results
    # (blind round 20's class); the run speaks 2026-07-28: caught on its handshake-era connection.
    "forgets_caller_at_connection_end": Variant(
        1,
        {CONNECTION_END: "fail"},
        focus="heartbeat.access",
        message=(CONNECTION_END, "over MCP 2025-06-18"),
        rule=(CONNECTION_END, "instructions"),
    ),
    # Released only when the caller's last connection ends: caught through caller B, whose only
    # connection ends; and released in the background a second after the DELETE: caught a hold after.
    "forgets_caller_at_connection_end/when-last": Variant(
        1,
        {CONNECTION_END: "fail"},
        focus="heartbeat.access",
        agent_args=("--when-last",),
        message=(CONNECTION_END, "by caller B on its only connection"),
    ),
    "forgets_caller_at_connection_end/after-1s": Variant(
        1,
        {CONNECTION_END: "fail"},
        focus="heartbeat.access",
        agent_args=("--after", "1"),
        rule=(CONNECTION_END, "instructions"),
    ),
    "forgets_caller_at_connection_end/results-only": Variant(
        1,
        {CONNECTION_END: "fail"},
        focus="heartbeat.access",
        agent_args=("--results-only",),
        rule=(CONNECTION_END, "retry"),
    ),
    # Only the sequences acknowledge pages while paging.
    "cursor_is_offset": Variant(1, {SEQ: "fail"}, focus="heartbeat.instructions"),
    # -- pressure ------------------------------------------------------------------------------------
    # Each runs with the reference's flag for its policy and the suite's matching option, and only
    # the twins: the policy would disturb other cases (a 2 s time to live).
    # The memory twins: a retry, another caller's refused call, counted as use.
    "lru_touched_by_retry": Variant(
        1,
        {"heartbeat.twins.session-cap": "fail"},
        focus="heartbeat.twins",
        agent_args=("--session-cap", "16"),
        args=("--mcp-session-cap", "16"),
    ),
    "lru_touched_by_other_caller": Variant(
        1,
        {"heartbeat.twins.session-cap": "fail"},
        focus="heartbeat.twins",
        agent_args=("--session-cap", "16"),
        args=("--mcp-session-cap", "16"),
    ),
    # The same, behind a cap read the other way (a room of 15 or 17 under --session-cap 16): a round
    # sized by the stated cap evicts both twins or neither, and the case sizes it one fewer or more.
    "lru_touched_by_retry_at_the_cap": Variant(
        1,
        {"heartbeat.twins.session-cap": "fail"},
        focus="heartbeat.twins",
        agent_args=("--session-cap", "16"),
        args=("--mcp-session-cap", "16"),
        rule=("heartbeat.twins.session-cap", "retry"),
    ),
    "lru_touched_by_other_caller_past_the_cap": Variant(
        1,
        {"heartbeat.twins.session-cap": "fail"},
        focus="heartbeat.twins",
        agent_args=("--session-cap", "16"),
        args=("--mcp-session-cap", "16"),
        # Its cache is touched by every call that reaches the access check: retries are named too.
        message=("heartbeat.twins.session-cap", "caller B's heartbeat"),
    ),
    # The idle-expiry twins: a rejected call, another caller's call, that refresh the idle timer.
    "ttl_refreshed_by_rejected_call": Variant(
        1,
        {"heartbeat.twins.idle-expiry": "fail"},
        focus="heartbeat.twins",
        agent_args=("--session-ttl", "2"),
        args=("--mcp-session-ttl", "2"),
    ),
    "ttl_refreshed_by_other_caller": Variant(
        1,
        {"heartbeat.twins.idle-expiry": "fail"},
        focus="heartbeat.twins",
        agent_args=("--session-ttl", "2"),
        args=("--mcp-session-ttl", "2"),
    ),
    # The allowance twins: a retry, a rejected call, that spend the per-session allowance.
    "limit_spent_by_retry": Variant(
        1,
        {"heartbeat.twins.request-limit": "fail"},
        focus="heartbeat.twins",
        agent_args=("--request-limit", "20"),
        args=("--mcp-request-limit", "20"),
    ),
    "limit_spent_by_rejected_call": Variant(
        1,
        {"heartbeat.twins.request-limit": "fail"},
        focus="heartbeat.twins",
        agent_args=("--request-limit", "20"),
        args=("--mcp-request-limit", "20"),
    ),
    # -- later: left alone for the hold --------------------------------------------------------------
    # Its instructions dropped 1.5 s after their enqueue are gone too after a connection's end,
    # which is asked a hold later.
    "forgets_pending_instructions": Variant(
        1, {"heartbeat.later.pending-held": "fail", CONNECTION_END: "fail"}
    ),
    "acks_expire": Variant(1, {"heartbeat.later.pending-held": "fail"}),
    # -- overlap ---------------------------------------------------------------------------------------
    # Calls that wait 0.2 s on their storage: the cases that send calls together.
    "acks_lost_under_overlap": Variant(
        1, {"heartbeat.overlap.concurrent-acks": "fail"}, focus="heartbeat.overlap"
    ),
    "ack_lost_to_delivery": Variant(
        1, {"heartbeat.overlap.concurrent-acks": "fail"}, focus="heartbeat.overlap"
    ),
    "lost_update_under_overlap": Variant(
        1, {"heartbeat.overlap.concurrent-writes": "fail"}, focus="heartbeat.overlap"
    ),
    "record_outside_the_call": Variant(
        1, {"heartbeat.overlap.concurrent-writes": "fail"}, focus="heartbeat.overlap"
    ),
    # An instruction enqueued while an acknowledging heartbeat waits 50 ms on its storage is
    # overwritten by the queue that heartbeat read, less what it acknowledged.
    "ack_compacts_over_enqueue": Variant(
        1,
        {"heartbeat.overlap.enqueue-in-flight": "fail"},
        focus="heartbeat.overlap",
        agent_args=("--io-delay", "0.05"),
        rule=("heartbeat.overlap.enqueue-in-flight", "acknowledging"),
    ),
    # -- boundaries ----------------------------------------------------------------------------------
    "session_ids_cut_at_64": Variant(1, {"heartbeat.boundary.session-id-lengths": "fail"}),
    "session_ids_cut_at_255": Variant(1, {"heartbeat.boundary.session-id-lengths": "fail"}),
    # Under a session cap of one (stated), a read showing no state is what eviction does, but a
    # read showing the other id's state is still the merge.
    "session_ids_cut_at_255/session-cap-1": Variant(
        1,
        {"heartbeat.boundary.session-id-lengths": "fail"},
        message=("heartbeat.boundary.session-id-lengths", "reads the state written to the 256-character one"),
        agent_args=("--session-cap", "1"),
        args=("--mcp-session-cap", "1"),
    ),
    "keys_cut_at_64": Variant(1, {"heartbeat.boundary.key-lengths": "fail"}),
    "instruction_text_cut_at_255": Variant(1, {"heartbeat.boundary.instruction-lengths": "fail"}),
    "instruction_text_cut_at_1024": Variant(1, {"heartbeat.boundary.instruction-lengths": "fail"}),
    "instruction_text_utf8mb3": Variant(1, {"heartbeat.boundary.instruction-encodings": "fail"}),
    "instruction_text_nfkc": Variant(1, {"heartbeat.boundary.instruction-encodings": "fail"}),
    "instruction_text_stripped": Variant(1, {"heartbeat.boundary.instruction-encodings": "fail"}),
    # Texts that are JSON documents delivered decoded (42, true, null, an object …).
    "instruction_text_json_decoded": Variant(1, {"heartbeat.boundary.instruction-encodings": "fail"}),
    "instruction_text_html_escaped": Variant(
        1,
        {"heartbeat.boundary.instruction-encodings": "fail", SEQ: "fail"},
        rule=(SEQ, "foreign"),
    ),
    "session_ids_url_decoded": Variant(1, {"heartbeat.boundary.id-encodings": "fail"}),
    "session_ids_decoded_twice": Variant(1, {"heartbeat.boundary.id-encodings": "fail"}),
    "session_ids_path_normalised": Variant(1, {"heartbeat.boundary.id-encodings": "fail"}),
    "session_ids_nfc": Variant(1, {"heartbeat.boundary.id-encodings": "fail"}),
    "empty_ack_clears_queue": Variant(1, {"heartbeat.boundary.empty-ack-list": "fail"}),
    "empty_ack_acks_delivered": Variant(1, {"heartbeat.boundary.empty-ack-list": "fail"}),
    "empty_step_ignored": Variant(
        1, {"heartbeat.boundary.empty-step": "fail", "heartbeat.boundary.reported-sequence": "fail"}
    ),
    "progress_never_back": Variant(1, {"heartbeat.boundary.reported-sequence": "fail"}),
    "empty_key_ignored": Variant(1, {"heartbeat.boundary.empty-key": "fail"}),
    # -- neighbours ----------------------------------------------------------------------------------
    "keys_per_caller_cache": Variant(1, {"heartbeat.idempotency.key-across-sessions": "fail"}),
    "keys_global_cache": Variant(1, {"heartbeat.idempotency.key-across-sessions": "fail"}),
    # The retry table keyed "hb:<caller>:<session>:<key>": ("s:1", "k") and ("s", "1:k") collide.
    "keys_joined_with_colons": Variant(1, {"heartbeat.idempotency.joined-keys": "fail"}),
    "keys_joined_with_colons/session-cap-1": Variant(
        1,
        {"heartbeat.idempotency.joined-keys": "fail"},
        agent_args=("--session-cap", "1"),
        args=("--mcp-session-cap", "1"),
    ),
    "retry_remarks_delivered": Variant(1, {"heartbeat.instructions.retry-after-ack": "fail"}),
    "acks_skip_state": Variant(1, {"heartbeat.instructions.ack-with-report": "fail"}),
    # Only the status dropped: the case writes every field results show back, not the probe's alone.
    "acks_drop_status": Variant(
        1, {"heartbeat.instructions.ack-with-report": "fail"}, focus="ack-with-report or report"
    ),
    # The probe's field then reads absent: a value JSON has no type for, kept in the report as text.
    "acks_skip_state_omit": Variant(
        1,
        {"heartbeat.instructions.ack-with-report": "fail"},
        message=("heartbeat.instructions.ack-with-report", "reads absent"),
        focus="ack-with-report",
    ),
    # The page built before the acknowledgement: the sequences' acked-in-answer rule sees it too.
    "ack_after_page": Variant(1, {"heartbeat.instructions.ack-answer-omits-acked": "fail", SEQ: "fail"}),
    # Retry results kept per second of the wall clock: a retry after the second turned is applied
    # again. Per minute (the file's default) only the thorough profile's wait of up to 60 s shows it.
    # Any other case's retry shows it too when a second happens to turn between the call and its
    # retry (the empty key's did, once in CI), so only the case that straddles one on purpose runs.
    "retries_kept_per_clock_bucket/second": Variant(
        1,
        {"heartbeat.idempotency.retry-across-clock": "fail"},
        focus="retry-across-clock",
        agent_args=("--bucket-seconds", "1"),
    ),
    # Acknowledging the second of two acknowledges the first: acks out of order lose instructions.
    "acks_commit_an_offset": Variant(1, {"heartbeat.instructions.ack-some": "fail"}),
}
# The cases that learn what an acknowledgement did from an instruction delivered again.
REDELIVERED = [
    "heartbeat.instructions.ack-other-session",
    "heartbeat.instructions.ack-answer-omits-acked",
    "heartbeat.instructions.retry-after-ack",
    "heartbeat.instructions.ack-some",
    "heartbeat.overlap.concurrent-acks",
]
# Conforming servers that each defeat an assumption the suite once made (a status-less heartbeat
# keeps the status, results name their fields as the reference's do, a retry's answer is the same
# bytes, pages are small…): the reference's outcomes, or ones that conclude nothing (never fail/warn).
# The sequences run where a server defeats one of their assumptions too (SEQ: "pass").
CONFORMING: dict[str, Variant] = {
    # An outputSchema that types the whole result: every edge of the inputSchema answers within it.
    "output_schema_typed": Variant(0, {}, focus="heartbeat.result or heartbeat.boundary"),
    # The text block escapes every non-ASCII character and indents: the same JSON value.
    "text_ascii_escaped": Variant(0, {}, focus="heartbeat.result"),
    # Sessions as resources, listed to their owner only: judged, and passes.
    "resources_scoped": Variant(0, {OTHER_SURFACES: "pass"}, focus="access or surface"),
    "several_tools": Variant(0, {OTHER_SURFACES: "pass"}, also=(SURFACE,)),
    "logs_with_capability": Variant(0, {}, focus="heartbeat.wire or heartbeat.result"),
    "progress_during_call": Variant(0, {}, focus="heartbeat.wire", also=(PROGRESS,)),
    "negotiates_older_version": Variant(0, {}, focus="heartbeat.wire"),
    "bounded_queue_refuses": Variant(
        0, {}, focus="heartbeat.volume or heartbeat.instructions", also=(VOLUME,)
    ),
    "status_defaults_active": Variant(0, {}),
    "state_nested": Variant(0, {}),
    "replay_flagged": Variant(0, {}, focus="heartbeat.idempotency"),
    "instruction_message_field": Variant(
        0, {}, focus="heartbeat.instructions or heartbeat.access or heartbeat.args"
    ),
    "per_session_ids": Variant(
        0, {}, focus="heartbeat.instructions or heartbeat.access or heartbeat.args or heartbeat.session"
    ),
    "concurrent_retry_refused": Variant(0, {}, focus="heartbeat.idempotency"),
    "one_page": Variant(
        0,
        {"heartbeat.instructions.paging": "n/a", "heartbeat.instructions.cursor-other-session": "n/a"},
        focus="heartbeat.instructions",
    ),
    # No state in its results: only what the state alone shows is not testable.
    "state_not_shown": Variant(
        0,
        dict.fromkeys(
            [
                "heartbeat.idempotency.not-applied-twice",
                "heartbeat.idempotency.new-key-new-call",
                "heartbeat.idempotency.key-variants",
                "heartbeat.idempotency.key-across-sessions",
                "heartbeat.idempotency.joined-keys",
                "heartbeat.instructions.ack-with-report",
                "heartbeat.overlap.concurrent-writes",
                "heartbeat.boundary.session-id-lengths",
                "heartbeat.boundary.key-lengths",
                "heartbeat.boundary.id-encodings",
                "heartbeat.boundary.empty-step",
                "heartbeat.boundary.empty-key",
                "heartbeat.boundary.reported-sequence",
            ],
            "not-testable",
        ),
    ),
    # Takes no session the suite makes up: whatever needs one is not testable, and says so.
    "known_sessions_only": Variant(
        0,
        dict.fromkeys(
            [
                c
                for c in HEARTBEAT
                if not c.startswith(
                    (
                        "heartbeat.tools.",
                        "heartbeat.schema.",
                        "heartbeat.wire.server-identity",
                        "heartbeat.wire.version-negotiation",
                        "heartbeat.wire.notifications-declared",
                        "heartbeat.wire.slow-reader",
                    )
                )
            ],
            "not-testable",
        ),
    ),
    "instruction_id_named": Variant(
        0,
        {SEQ: "pass"},
        focus="heartbeat.instructions or heartbeat.access or heartbeat.args or heartbeat.session",
    ),
    "instructions_page_object": Variant(
        0, {SEQ: "pass"}, focus="heartbeat.instructions or heartbeat.args or heartbeat.session"
    ),
    "cursor_snake": Variant(0, {SEQ: "pass"}, focus="heartbeat.instructions"),
    # A cursor under a name the suite does not know: sent back, it brings the next page, so what
    # the suite did not page to is not testable, not lost.
    "cursor_unknown_name": Variant(
        0,
        dict.fromkeys(
            [
                SEQ,
                "heartbeat.instructions.paging",
                "heartbeat.instructions.cursor-other-session",
                "heartbeat.instructions.ack-some",
            ],
            "not-testable",
        ),
        focus="heartbeat.instructions",
    ),
    "delayed_delivery": Variant(
        0,
        {SEQ: "pass"},
        focus="heartbeat.instructions or heartbeat.access or heartbeat.args or heartbeat.session",
    ),
    "prefixed_text": Variant(
        0, {SEQ: "pass"}, focus="heartbeat.instructions or heartbeat.args or heartbeat.session"
    ),
    "omit_empty": Variant(0, {SEQ: "pass"}),
    # Redelivery is a MAY: an instruction delivered once (or hidden 30 s) is not lost; what an
    # acknowledgement did shows only through an instruction delivered again, which never comes.
    "delivers_once": Variant(0, dict.fromkeys(REDELIVERED, "not-testable") | {SEQ: "pass"}),
    "visibility_timeout": Variant(
        0,
        dict.fromkeys(REDELIVERED, "not-testable") | {SEQ: "pass", "heartbeat.later.pending-held": "pass"},
    ),
    "schema_status_ref": Variant(0, {}, focus="heartbeat.tools or heartbeat.schema"),
    "schema_typebox": Variant(0, {}, focus="heartbeat.tools or heartbeat.schema"),
    "schema_equivalent_forms": Variant(0, {}, focus="heartbeat.tools or heartbeat.schema or heartbeat.args"),
    "current_view_retry": Variant(0, {}, focus="heartbeat.idempotency or heartbeat.access"),
    "strict_id_formats": Variant(0, {}, focus="heartbeat.idempotency or heartbeat.session or heartbeat.args"),
    # Refuses session ids that read as numbers or start with neither a letter nor a digit.
    "session_ids_not_numeric": Variant(0, {}, focus="heartbeat.session or heartbeat.boundary"),
    # Ids scoped per caller: B's heartbeat on A's id is B's own session (once a failure).
    "caller_scoped_ids": Variant(0, {}, focus="heartbeat.access or heartbeat.twins or heartbeat.idempotency"),
    # A first heartbeat answered at once and written behind, created only if absent: two callers'
    # first calls together are both answered, and the loser's next one refused.
    "write_behind_create": Variant(0, {}, focus="heartbeat.access"),
    "newest_first": Variant(
        0,
        {"heartbeat.later.pending-held": "pass", SEQ: "pass"},
        focus="heartbeat.instructions or heartbeat.boundary or heartbeat.overlap or heartbeat.later",
    ),
    # Every call 30 ms, one at a time: the cases that send calls together.
    "slow_serialised": Variant(0, {}, focus="heartbeat.overlap or heartbeat.idempotency"),
    # Evicts by creation, not use (run with a cap, the twins alone as the pressure variants): an
    # honest policy, never taken for a side effect.
    "evicts_by_creation": Variant(
        0,
        {"heartbeat.twins.session-cap": "pass"},
        focus="heartbeat.twins",
        agent_args=("--session-cap", "16"),
        args=("--mcp-session-cap", "16"),
    ),
    # A cap of 16 read the other way: 15 sessions kept (evicts on reaching it) or 17 (once past it).
    "evicts_at_the_cap": Variant(
        0,
        {"heartbeat.twins.session-cap": "pass"},
        focus="heartbeat.twins",
        agent_args=("--session-cap", "16"),
        args=("--mcp-session-cap", "16"),
    ),
    # A cap of 2 that holds one session: the sessions a connection's end is judged on are asked one
    # connection at a time, never two together where they would evict each other.
    "evicts_at_the_cap/cap-2": Variant(
        0,
        {},
        focus="connection-end or same-caller",
        agent_args=("--session-cap", "2"),
        args=("--mcp-session-cap", "2"),
    ),
    "evicts_past_the_cap": Variant(
        0,
        {"heartbeat.twins.session-cap": "pass"},
        focus="heartbeat.twins",
        agent_args=("--session-cap", "16"),
        args=("--mcp-session-cap", "16"),
    ),
    "names_its_wire": Variant(0, {}, focus="heartbeat.wire or heartbeat.idempotency"),
    # Forgets a session its time to live after creation, however used (run with one, the twins and
    # the hold): an absolute lifetime, no spec sentence bounds it; the twins expire together.
    "expires_by_creation": Variant(
        0,
        {"heartbeat.twins.idle-expiry": "pass", "heartbeat.later.pending-held": "pass"},
        focus="heartbeat.twins or heartbeat.later",
        agent_args=("--session-ttl", "2"),
        args=("--mcp-session-ttl", "2"),
    ),
}


# Over stdio: servers hand-written without the SDK (results the SDK would not let the reference
# build; they speak the handshake era only, so the cases that compare the eras, or need the
# stateless one, are n/a), and a server whose bug is in the stdio operator's spool.
HANDSHAKE_ONLY = dict.fromkeys(["heartbeat.wire.same-answers", "heartbeat.wire.server-identity"], "n/a")
STDIO_BROKEN: dict[str, Variant] = {
    # stdin decoded a block at a time: a block that ends inside a character is dropped whole.
    "decodes_each_block": Variant(1, {SLOW_READER: "fail"}, focus="heartbeat.wire"),
    # The same with bad bytes replaced: every request answered, some under ids never sent.
    "decodes_each_block/replace": Variant(
        1,
        {SLOW_READER: "fail"},
        focus="heartbeat.wire",
        agent_args=("--replace",),
        message=(SLOW_READER, "ids the suite never sent"),
    ),
    # The hook takes a text of the limit's length, the server refuses it: dropped silently.
    "spool_drops_at_the_limit": Variant(
        1,
        {"heartbeat.boundary.instruction-lengths": "fail"},
        focus="instruction-lengths",
        agent_args=("--max-length", "1024"),
    ),
    # On stdio progress after the result arrives in either era: both connections show it.
    "progress_after_result": Variant(1, {PROGRESS: "fail"}, focus="heartbeat.wire"),
    # JSON-RPC as clients use it: string ids, a tools/call sent as a notification.
    # Id 0 answered under a number of the server's own (a table of calls that maps back with `or`).
    "falsy_id_renumbered": Variant(
        1, {"heartbeat.wire.request-ids": "fail"} | HANDSHAKE_ONLY, focus="heartbeat.wire"
    ),
    "string_ids_as_numbers": Variant(
        1,
        {"heartbeat.wire.request-ids": "fail", SLOW_READER: "fail"} | HANDSHAKE_ONLY,
        focus="heartbeat.wire",
    ),
    # A tools/call without an id is a frame no MCP client sends: a robustness finding, the verdict
    # stands (as ACP's status sent as a notification).
    "answers_notifications": Variant(
        0, {"heartbeat.wire.notification-unanswered": "warn"} | HANDSHAKE_ONLY, focus="heartbeat.wire"
    ),
    # Every notification answered under id null, notifications/cancelled included: a MUST.
    "answers_client_notifications": Variant(
        1, {"heartbeat.wire.client-notifications-unanswered": "fail"} | HANDSHAKE_ONLY, focus="heartbeat.wire"
    ),
    # Replies through an outbox of 64 lines that drops what finds it full (blind 16, certified
    # before): only a client that stops reading for a moment fills it.
    "outbox_drops_when_full": Variant(1, {SLOW_READER: "fail"} | HANDSHAKE_ONLY, focus="heartbeat.wire"),
    "result_not_tool_result": Variant(
        1,
        {"heartbeat.result.shape": "fail", "heartbeat.result.text-mirrors-structured": "warn"}
        | HANDSHAKE_ONLY,
    ),
    # The schema cases read the same (non-object) schema, so they fail with it.
    "schema_not_object": Variant(
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
    # Its spool is the stdio operator's: an instruction dropped in while a heartbeat waits 50 ms on
    # its storage is deleted unread (confirmed lost by asking again for a second).
    "spool_emptied_after_read": Variant(
        1,
        {"heartbeat.overlap.enqueue-in-flight": "fail"},
        focus="heartbeat.overlap",
        agent_args=("--io-delay", "0.05"),
        args=("--delivery-wait", "1"),
    ),
    # Its queue's time to live starts when a heartbeat reads the operator's spool: what that
    # heartbeat left for a later page is gone after a hold longer than it.
    "instructions_expire_after_enqueue": Variant(
        1, {"heartbeat.later.pending-held": "fail"}, focus="heartbeat.later", args=("--hold", "1")
    ),
}
# The control: the reference over stdio with the same storage round trip reads its spool after
# the wait, so what lands during a heartbeat is delivered.
STDIO_FEATURES: dict[str, Variant] = {
    "reference/io-delay": Variant(0, focus="heartbeat.overlap", agent_args=("--io-delay", "0.05")),
}
# Hand-written servers over stdio that take allowed paths.
STDIO_CONFORMING: dict[str, Variant] = {
    # An outbox of 64 lines whose writes wait for room: a slow reader stalls it, and it loses nothing.
    "outbox_blocks_when_full": Variant(0, HANDSHAKE_ONLY, focus="heartbeat.wire"),
}


def script(name: str) -> tuple[str, ...]:
    """The program of variant NAME (tests/agents/mcp/NAME.py, or NAME/configuration), or of the
    reference server for "reference/…"."""
    if name.startswith("reference"):
        return ("-m", "conformance.reference.mcp.server")
    return (str(agent_path("mcp", name)),)


def http_start(name: str, variant: Variant) -> tuple[str, ...]:
    """Variant NAME over Streamable HTTP, with two callers and the operator endpoint."""
    command = python_command(*script(name), "--http", "127.0.0.1:0", *variant.agent_args)
    return ("--mcp-cmd", command, *HTTP_OPTIONS)


def stdio_start(name: str, variant: Variant) -> tuple[str, ...]:
    """Variant NAME over stdio, with the reference's operator hook."""
    command = python_command(*script(name), *variant.agent_args)
    return ("--mcp-cmd", command, "--instruct-cmd", REFERENCE_INSTRUCT_CMD)


# The reference's machinery, each part on by its own flag, with the suite's matching option: the
# reference stays conformant, and the twins that need the policy run (the cheap cases, as a guard).
FEATURES: dict[str, Variant] = {
    "reference/session-cap": Variant(
        0,
        {"heartbeat.twins.session-cap": "pass"},
        agent_args=("--session-cap", "24"),
        args=("--mcp-session-cap", "24"),
    ),
    "reference/session-ttl": Variant(
        0,
        {"heartbeat.twins.idle-expiry": "pass", "heartbeat.later.pending-held": "pass"},
        agent_args=("--session-ttl", "2"),
        args=("--mcp-session-ttl", "2"),
    ),
    # Resumable streams, every event id drawn from one counter.
    "reference/resumable": Variant(
        0, {EVENT_IDS: "pass"}, focus="heartbeat.wire", agent_args=("--resumable",)
    ),
    # The volume case drains its instructions within the allowance, two to a page.
    "reference/request-limit": Variant(
        0,
        {"heartbeat.twins.request-limit": "pass", VOLUME: "pass"},
        agent_args=("--request-limit", "60"),
        args=("--mcp-request-limit", "60"),
    ),
    # Small caps, stated: the cases that use several sessions at once judge within them (a read
    # showing no state only where plain sessions show none either); with room for one session the
    # cap twins and the acknowledgement across sessions cannot arrange their sessions.
    "reference/session-cap-1": Variant(
        0,
        {
            "heartbeat.twins.session-cap": "n/a",
            "heartbeat.instructions.ack-other-session": "n/a",
        },
        focus="session-id-lengths or joined-keys or concurrent-writes or per-session or ack-other or session-cap",
        agent_args=("--session-cap", "1"),
        args=("--mcp-session-cap", "1"),
    ),
    "reference/session-cap-3": Variant(
        0,
        {"heartbeat.twins.session-cap": "pass"},
        focus="session-id-lengths or joined-keys or concurrent-writes or per-session or ack-other or session-cap",
        agent_args=("--session-cap", "3"),
        args=("--mcp-session-cap", "3"),
    ),
    "reference/io-delay": Variant(0, agent_args=("--io-delay", "0.005")),
    "reference/max-length": Variant(0, agent_args=("--max-length", "1024")),
}

HTTP_BROKEN = Table("mcp", HTTP_BASELINE, http_start, by_area(BROKEN))
HTTP_CONFORMING = Table("mcp", HTTP_BASELINE, http_start, CONFORMING, conforming=True)
HTTP_FEATURES = Table("mcp", HTTP_BASELINE, http_start, FEATURES, conforming=True)
STDIO = Table("mcp", STDIO_BASELINE, stdio_start, STDIO_BROKEN)
STDIO_CONTROLS = Table("mcp", STDIO_BASELINE, stdio_start, STDIO_FEATURES, conforming=True)
STDIO_CONFORMING_TABLE = Table("mcp", STDIO_BASELINE, stdio_start, STDIO_CONFORMING, conforming=True)
TABLES = (HTTP_BROKEN, HTTP_CONFORMING, HTTP_FEATURES, STDIO, STDIO_CONTROLS, STDIO_CONFORMING_TABLE)


@pytest.mark.slow
@pytest.mark.parametrize("server", sorted(BROKEN))
def test_broken_server_gets_exactly_its_outcomes(server: str, direct) -> None:
    certify(direct, HTTP_BROKEN, server)


@pytest.mark.slow
@pytest.mark.parametrize("server", sorted(CONFORMING))
def test_conforming_server_gets_the_references_outcomes(server: str, direct) -> None:
    certify(direct, HTTP_CONFORMING, server)


@pytest.mark.slow
@pytest.mark.parametrize("feature", sorted(name.partition("/")[2] for name in FEATURES))
def test_reference_with_each_feature_is_certified(feature: str, direct) -> None:
    certify(direct, HTTP_FEATURES, f"reference/{feature}")


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
    runtime = Runtime(config)
    with revision_kept():
        revisions.use("mcp-session-heartbeat-2025-06-18")
        try:
            runtime.start()
            for seed in range(10):
                config.seed = seed
                result = runtime.run_case(CASES[SEQ]).result
                assert (result.outcome, result.rule) == (Outcome.FAIL, rule), f"seed {seed}: {result.message}"
        finally:
            runtime.close()


def test_the_audit_names_variants_that_fail_their_checks() -> None:
    assert audit_not_backed("mcp", TABLES) == []


@pytest.mark.parametrize("server", sorted(STDIO_BROKEN))
def test_stdio_broken_server_gets_exactly_its_outcomes(server: str, direct) -> None:
    certify(direct, STDIO, server)


@pytest.mark.parametrize("server", sorted(STDIO_CONFORMING))
def test_stdio_conforming_server_passes(server: str, direct) -> None:
    certify(direct, STDIO_CONFORMING_TABLE, server)


@pytest.mark.parametrize("feature", sorted(name.partition("/")[2] for name in STDIO_FEATURES))
def test_reference_with_each_feature_is_certified_over_stdio(feature: str, direct) -> None:
    certify(direct, STDIO_CONTROLS, f"reference/{feature}")


@pytest.mark.slow
def test_a_small_stated_allowance_is_never_a_failure(direct) -> None:
    """The reference allows 4 heartbeats a session, as the user states (--mcp-request-limit 4):
    every case gets its stdio outcome or, where it needs more heartbeats for one session than
    that, says so as not testable; the allowance twins judge (their calibration spreads over two
    sessions)."""
    start = stdio_start("reference", Variant(0, agent_args=("--request-limit", "4")))
    run = direct(*start, "--mcp-request-limit", "4")
    assert run.code == 0, run.stderr[-2000:]
    differ = {c: o for c, o in run.outcomes.items() if o != STDIO_BASELINE[c]}
    assert differ.pop("heartbeat.twins.request-limit", None) == "pass", run.outcomes
    assert set(differ.values()) == {"not-testable"}, differ
    for case_id in differ:
        assert "the server's allowance (--mcp-request-limit 4)" in run.case(case_id)["message"], case_id


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
    assert uncaught("mcp", TABLES) == set()


def test_every_mcp_server_is_listed() -> None:
    assert unlisted("mcp", TABLES, others={"custom_result_shape"}) == (set(), set())


def _replay(path: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "runner.py"), "replay", path, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )

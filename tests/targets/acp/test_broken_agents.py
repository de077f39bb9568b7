"""Every check is shown to fail: each broken agent gets exactly the outcomes it was built for.

The reference agent's outcomes are the baseline; a broken agent's expected outcomes are that
baseline with the listed differences, and nothing else may differ. A case that no agent here
makes fail or warn is a check nobody has seen work, and test_every_case_is_caught fails.
"""

from __future__ import annotations

import conformance.cases as cases
import pytest

from conformance.core.registry import CASES
from tests.conftest import Run, agent_command
from tests.variants import Table, Variant, audit_not_backed, by_area, certify, file_of, uncaught, unlisted

cases.load_all()
ACP_CASES = {case_id: case for case_id, case in CASES.items() if case.target == "acp"}  # MCP: test_mcp.py

# The reference agent: conformant, takes no MAY path, advertises session/status.
CONNECTION_CASES = [case_id for case_id in ACP_CASES if case_id.startswith("status.connections.")]
V2_CASES = [case_id for case_id in ACP_CASES if "v2" in ACP_CASES[case_id].needs]
# The pressure cases that need the agent's policy (--memory-cap, --idle-evict-after): test_twins.py.
POLICY_CASES = [c for c in ACP_CASES if c.endswith(("twins-memory", "twins-idle", "-eviction"))]
# Over WebSocket (two connections to one agent): every v1 case runs.
WS_BASELINE = (
    {case_id: "pass" for case_id in ACP_CASES}
    | dict.fromkeys(POLICY_CASES, "not-testable")
    | {"capability.status.unadvertised-method-not-found": "n/a", "status.unknown.may-inactive": "n/a"}
    | dict.fromkeys(V2_CASES, "n/a")
    # Over WebSocket there is no stdout to keep clean, nor a pipe to fill.
    | {"transport.stdout.messages-only": "n/a", "transport.stdio.slow-reader": "n/a"}
)
# Over stdio there is one connection: the connection cases say what to pass instead.
BASELINE = (
    WS_BASELINE
    | dict.fromkeys(CONNECTION_CASES, "not-testable")
    | {"transport.stdout.messages-only": "pass", "transport.stdio.slow-reader": "pass"}
)
# The v2 reference agent (--protocol 2), over stdio: the foreground-state cases run, v1's do not.
V1_ONLY = [case_id for case_id in ACP_CASES if "v1" in ACP_CASES[case_id].needs]
V2_BASELINE = (
    BASELINE
    | dict.fromkeys(V2_CASES, "pass")
    | dict.fromkeys(V1_ONLY, "n/a")
    # v2's session capability object names no session/delete
    | {"status.consistency.after-delete": "unimplemented"}
)
UNKNOWN_IDS_ANSWERED_AS_RESULT = {
    "status.error.unknown-session-message": "n/a",
    "status.error.unknown-session-data": "n/a",
}

SEQ = "sequence.status.model-based"
FUZZ_PARAMS = "fuzz.status.params"
MIXED = {
    "status.vocabulary.one-revision": "fail",
    "status.inactive.after-close": "fail",
    "status.inactive.after-restart": "fail",
    "status.no-side-effects.inactive-stays-inactive": "fail",
    SEQ: "fail",
}
# The revision --spec auto picks is the default rfd-2026-10-26 unless a variant's `revision` says
# otherwise (an agent that answers in the words of acp-unstable-2026-11).
UNSTABLE = "acp-unstable-2026-11"

# A status that loads an inactive session loads it in the overlap cases too.
LOADS = {"status.overlap.burst-leaves-sessions": "fail", "status.overlap.race-close": "fail"}
# Unknown ids answered otherwise than -32002: the boundary forms of a live id are unknown ids too.
BOUNDARY_IDS = {"status.identity.long-ids": "fail", "status.identity.encoded-ids": "fail"}

# agent file in tests/agents/acp -> its exit code and the outcomes that differ from the baseline
BROKEN: dict[str, Variant] = {
    "capability_true": Variant(1, {"capability.status.object": "fail"}),
    "result_meta_not_object": Variant(1, {"status.result.shape": "fail"}),
    # Its bug shows on every fresh session, so the fuzzers' live sessions see it too.
    "new_session_inactive": Variant(
        1,
        {
            "status.active.after-new": "fail",
            "status.active.during-turn": "fail",
            "status.overlap.answers-by-id": "fail",
            "status.overlap.race-prompt": "fail",
            FUZZ_PARAMS: "fail",
            "fuzz.frames.survives": "warn",
        },
    ),
    # Its bug shows only on sessions created with an MCP server, for 2 s after session/new: the
    # case that creates one and asks at once. (The sequence's `new` steps s0, s2… draw them too; it
    # sees an unknown held session as evicted, and catches the bug only when a later status finds
    # it back: not run here.)
    "mcp_servers_pending": Variant(1, {"status.active.after-new": "fail"}, focus="status.active."),
    # A closed session whose history passed 8 000 characters is saved compressed, where status's
    # index does not look: -32002, though resume brings it back.
    "large_history_unindexed": Variant(
        1, {SEQ: "fail"}, focus="sequence.", rule=(SEQ, "unknown-not-resumable")
    ),
    # A turn's lock file outlives a restart that cut the turn short: status reads it as in memory.
    "turn_lock_outlives_restart": Variant(
        1,
        {"status.inactive.after-restart": "fail"},
        focus="after-restart",
        rule=("status.inactive.after-restart", "mid-turn"),
    ),
    # A background compactor rewrites the records of sessions not in memory in place; status
    # reads a half-written one as no session: -32002 for a moment, between two `inactive`.
    "compactor_rewrites_in_place": Variant(
        1,
        {"status.inactive.after-restart": "fail"},
        focus="after-restart",
        rule=("status.inactive.after-restart", "stays-known"),
    ),
    # Unknown to status until its own fs/read_text_file to an editor returns: only a client that
    # declared file access sees it (here the agent restarted for one).
    "client_fs_priming": Variant(
        1,
        {"status.clients.declarations": "fail"},
        focus="status.clients.",
        rule=("status.clients.declarations", "file-access"),
    ),
    # Status answers from an index built at the process's start, load reads the disk: a session a
    # second process of the same command stored is resumable here but unknown to status (blind 12).
    "second_process_stale_index": Variant(
        1,
        {"status.inactive.after-restart": "fail"},
        focus="after-restart",
        rule=("status.inactive.after-restart", "other-process"),
    ),
    # Status is an internal error for a client whose initialize named no client (blind 11).
    "status_needs_client_info": Variant(
        1,
        {"status.clients.declarations": "fail"},
        focus="status.clients.",
        rule=("status.clients.declarations", "minimal-initialize"),
    ),
    "still_active_after_close": Variant(
        1,
        {
            "status.inactive.after-close": "fail",
            # what "active" implies (a prompt works) is false for it, wherever it is asked
            "status.consistency.inactive-resumable": "fail",
            "status.consistency.after-delete": "fail",
            # its prerequisite, an inactive session made with session/close, cannot be had
            "status.no-side-effects.inactive-stays-inactive": "fail",
            "status.overlap.burst-leaves-sessions": "fail",
            "status.overlap.race-close": "fail",
            SEQ: "fail",
        },
    ),
    "active_after_restart": Variant(1, {"status.inactive.after-restart": "fail"}),
    "unknown_internal_error": Variant(
        1,
        {
            "status.error.unknown-session-code": "fail",
            "status.error.long-session-id": "fail",
            "status.identity.id-variants": "fail",
            "status.identity.empty-id": "fail",
            **BOUNDARY_IDS,
            FUZZ_PARAMS: "fail",
            SEQ: "fail",
        },
    ),
    "not_found_as_status": Variant(
        1,
        {
            "status.error.unknown-session-code": "fail",
            "status.error.long-session-id": "fail",
            "status.identity.id-variants": "fail",
            "status.identity.empty-id": "fail",
            "status.enum.known-values": "warn",
            # a result for an unknown id is no MAY path: the -32002 with its data never comes
            "status.error.unknown-session-data": "fail",
            "status.error.unknown-session-message": "n/a",
            **BOUNDARY_IDS,
        },
    ),
    "no_error_data": Variant(1, {"status.error.unknown-session-data": "fail", SEQ: "fail", **BOUNDARY_IDS}),
    "wrong_error_message": Variant(0, {"status.error.unknown-session-message": "warn"}),
    "may_inactive_resume_creates": Variant(
        1,
        {
            "status.unknown.may-inactive": "fail",
            # Resume of any never-created id succeeds, so that probe shows nothing of status.
            "status.no-side-effects.unknown-stays-unknown": "not-testable",
            "status.overlap.burst-leaves-sessions": "not-testable",
            "status.error.unknown-session-code": "info",
            SEQ: "fail",
            **UNKNOWN_IDS_ANSWERED_AS_RESULT,
        },
    ),
    "missing_id_internal_error": Variant(
        1, {"status.params.missing-session-id": "fail", FUZZ_PARAMS: "fail"}
    ),
    "int_id_coerced": Variant(1, {"status.params.non-string-session-id": "fail", FUZZ_PARAMS: "fail"}),
    "null_id_unknown": Variant(1, {"status.params.null-session-id": "fail", FUZZ_PARAMS: "fail"}),
    "envelope_missing_jsonrpc": Variant(
        1,
        {
            "status.params.missing-session-id": "fail",
            "status.params.no-params": "fail",
            "status.params.non-string-session-id": "fail",
            "status.params.null-session-id": "fail",
            FUZZ_PARAMS: "fail",
        },
    ),
    "status_loads_inactive": Variant(
        1,
        {"status.no-side-effects.inactive-stays-inactive": "fail", SEQ: "fail", **LOADS},
    ),
    # The other spellings status was asked about exist afterwards, so they resume (id-variants).
    "status_creates_unknown": Variant(
        1,
        {
            "status.no-side-effects.unknown-stays-unknown": "fail",
            "status.identity.id-variants": "fail",
            "status.overlap.burst-leaves-sessions": "fail",
            SEQ: "fail",
        },
    ),
    "status_replays_history": Variant(1, {"status.no-side-effects.no-notifications": "fail", SEQ: "fail"}),
    # The replay comes 150 ms after the status answer: only a window that waits for quiet sees it.
    "status_replays_later": Variant(1, {"status.no-side-effects.no-notifications": "fail"}),
    # A lie told once, late in the sequences, that Hypothesis cannot replay: still a failure, and
    # the message says it was not reproducible.
    "status_lies_once": Variant(1, {SEQ: "fail"}, message=(SEQ, "not reproducible when replayed alone")),
    # Status cancels the turn, in an agent that honours the permission answer: answered
    # `cancelled`, the control turn ended `cancelled` too and hid it.
    "status_cancels_honoured_turn": Variant(1, {"status.active.during-turn": "fail"}),
    # Status changes the session as the agent's own late title does: only the second window, once
    # the title is over, tells them apart.
    "status_touches_like_its_title": Variant(
        1,
        {
            "status.no-side-effects.no-notifications": "fail",
            "status.no-side-effects.list-unchanged": "fail",
            # its title, made by status, is kept across a restart; its twin's is not
            "status.no-side-effects.twins-restart": "fail",
        },
    ),
    "status_evicts_active": Variant(
        1,
        {
            "status.no-side-effects.active-accepts-prompt": "fail",
            "status.no-side-effects.twins-use": "fail",
            "status.active.during-turn": "fail",
            "status.overlap.race-prompt": "fail",
            SEQ: "fail",
            FUZZ_PARAMS: "fail",
        },
    ),
    "status_bumps_updated_at": Variant(1, {"status.no-side-effects.list-unchanged": "fail", SEQ: "fail"}),
    # Status loads the session two seconds later, in the background (a warm-up): only a watch as
    # long as --hold sees it.
    "status_loads_later": Variant(1, {"status.no-side-effects.twins-later": "fail"}),
    # Status marks the session seen; a debounced writer bumps its updatedAt 1.5 s later.
    "status_touches_later": Variant(1, {"status.no-side-effects.twins-later": "fail"}),
    # The realistic agent: status marks a loaded session used, a flusher writes updatedAt
    # half a second later, and a prompt marks it used too (the twins' own flush after their turns
    # must land before the status calls, or it hides the status's). The sequences' verdict on it
    # is not pinned: fail where the generated sequence shows the flush after status calls alone,
    # not testable where it shows it after a prompt too (the control without the status calls
    # fails as well: the prompt's flush is the agent's own).
    "status_marks_used_flushed": Variant(1, {"status.no-side-effects.twins-later": "fail"}),
    # A crash answering status fails whichever case asked (the request never gets its answer).
    # The fuzzer always tries a 10 kB id first (strategies.EXPLICIT_STATUS_PARAMS), so it finds it too.
    "crash_on_long_id": Variant(
        1,
        {
            "status.error.long-session-id": "fail",
            "status.error.unknown-session-data": "fail",
            # ids of 4097 characters (one past a 4 KiB limit) kill it too
            "status.identity.long-ids": "fail",
            "status.overlap.burst-leaves-sessions": "fail",
            FUZZ_PARAMS: "fail",
        },
    ),
    # The cheapness case has several rules: the message says which one was broken.
    "slow_status": Variant(
        0, {"status.cheap.latency": "warn"}, message=("status.cheap.latency", "is over 50.00 ms")
    ),
    "status_slower_than_list": Variant(
        0,
        {"status.cheap.latency": "warn"},
        message=("status.cheap.latency", "10x the agent's own session/list round trip"),
    ),
    # session/list of a directory with sessions is as slow as status: only an empty list shows it
    # (the cheapness case names the empty directory as its baseline: LIST_BASELINE).
    "status_slower_than_busy_list": Variant(
        0,
        {"status.cheap.latency": "warn"},
        message=("status.cheap.latency", "session/list round trip on an empty directory"),
    ),
    "unknown_status_value": Variant(0, {"status.enum.known-values": "warn"}),
    "v1_state_field": Variant(0, {"status.v1.no-state-field": "warn"}),
    # Two revisions' words in one agent: whichever revision --spec auto picks, the other's word fails.
    "mixed_open_inactive": Variant(1, MIXED, revision=UNSTABLE),
    "mixed_active_saved": Variant(1, MIXED),
    # The RFD's MAY path, taken by an agent of the revision that has no such MAY.
    "saved_for_unknown": Variant(
        1,
        {
            "status.error.unknown-session-code": "fail",
            "status.error.long-session-id": "fail",
            "status.identity.id-variants": "fail",
            "status.identity.empty-id": "fail",
            "status.consistency.after-delete": "fail",
            # no MAY path here: a result for an unknown id breaks the -32002 sentence, data and all
            "status.error.unknown-session-data": "fail",
            "status.error.unknown-session-message": "n/a",
            **BOUNDARY_IDS,
            FUZZ_PARAMS: "fail",
            SEQ: "fail",
        },
        revision=UNSTABLE,
    ),
    "status_without_capability": Variant(
        3,
        {
            **{
                case_id: "unimplemented"
                for case_id in ACP_CASES
                if case_id not in V2_CASES
                and ("status" in ACP_CASES[case_id].needs or case_id == "capability.status.object")
            },
            "capability.status.unadvertised-method-not-found": "warn",
        },
    ),
    # Sequence-only bugs: no scripted case sees them (the 3rd-status one also trips the
    # scripted 20-call case), the model-based sequences do.
    "third_status_loads": Variant(
        1,
        {SEQ: "fail", "status.no-side-effects.inactive-stays-inactive": "fail", **LOADS},
    ),
    "status_duplicates_after_resume": Variant(1, {SEQ: "fail"}),
    # Sequence-only before the overlap cases: a prompt with its cancel beside status calls shows it.
    "status_evicts_after_cancel": Variant(1, {SEQ: "fail", "status.overlap.race-prompt": "fail"}),
    "status_meta_attaches": Variant(1, {SEQ: "fail"}),
    # A load's replay sent with the next request about the session: a status call right after a
    # load (the sequences load where the agent offers resume too) carries it.
    # (session/load itself replays nothing, so the history case has no replay to compare.)
    "status_flushes_load_replay": Variant(
        1,
        {SEQ: "fail", "status.no-side-effects.history-unchanged": "not-testable"},
        rule=(SEQ, "no-notification"),
    ),
    # An id of the agent's own form answered `saved` without a lookup (no MAY path in this revision):
    # only the sequences' never-created ids, mutated from the agent's own, are of that form.
    "status_trusts_own_id_format": Variant(
        1,
        {SEQ: "fail", "status.consistency.after-delete": "unimplemented"},
        revision=UNSTABLE,
        rule=(SEQ, "unknown-id"),
    ),
    # Malformed-input bugs: only the fuzzers see them. The bare Python SDK's reader dies on frames
    # no ACP client sends: robustness findings, the agent stays CONFORMANT.
    "sdk_without_guard": Variant(0, {"fuzz.frames.survives": "warn", "fuzz.frames.error-codes": "warn"}),
    # Deaf for good after a malformed frame, and still up: both frame cases left unanswered, and
    # every later case, on a fresh process, judges as on the reference.
    "deaf_after_malformed_frame": Variant(
        0, {"fuzz.frames.survives": "warn", "fuzz.frames.error-codes": "warn"}
    ),
    "crash_on_control_chars": Variant(
        1,
        {
            FUZZ_PARAMS: "fail",
            "status.error.unknown-session-data": "fail",
            "status.identity.id-variants": "fail",
        },
    ),
    "deep_meta_internal_error": Variant(1, {FUZZ_PARAMS: "fail"}),
    # W3C trace context in _meta turns every error into -32603 (blind round 20's class).
    "traced_errors_internal": Variant(1, {FUZZ_PARAMS: "fail"}),
    # The same layer keeps -32002 but replaces its data with the trace id.
    "traced_errors_internal/keep-code": Variant(
        1, {"status.error.unknown-session-data": "fail"}, agent_args=("--keep-code",)
    ),
    # String ids are ids ACP allows: a second response to one breaks a well-formed status request.
    "string_id_answered_twice": Variant(
        1,
        {
            FUZZ_PARAMS: "fail",
            "transport.jsonrpc.id-types": "fail",
            "transport.jsonrpc.status-before-initialize": "warn",
        },
    ),
    # Identity: status finds a session by another spelling of its id (the other methods do not).
    "status_id_case_insensitive": Variant(1, {"status.identity.id-variants": "fail"}),
    "status_id_trimmed": Variant(
        1,
        {"status.identity.id-variants": "fail", "status.error.unknown-session-data": "fail"},
    ),
    "status_id_prefix": Variant(1, {"status.identity.id-variants": "fail"}),
    # status says -32002 for `./<id>`, resume/load reads the file by it: unknown to status only.
    "resume_reads_any_spelling": Variant(1, {"status.identity.id-variants": "fail"}),
    # It also normalises the id it echoes: an NFD unknown id comes back composed.
    "status_id_ascii_folded": Variant(1, {"status.identity.id-variants": "fail"}),
    "status_id_nfkc": Variant(
        1,
        {"status.identity.id-variants": "fail", "status.error.unknown-session-data": "fail"},
    ),
    "empty_id_is_current": Variant(1, {"status.identity.empty-id": "fail"}),
    "error_data_truncates_id": Variant(
        1,
        {"status.error.unknown-session-data": "fail", "status.identity.long-ids": "fail"},
    ),
    "no_params_internal_error": Variant(1, {"status.params.no-params": "fail"}),
    # Consistency between methods, and later transitions.
    "status_ignores_delete": Variant(1, {"status.consistency.after-delete": "fail"}),
    "status_forgets_closed": Variant(
        1,
        {
            "status.inactive.after-close": "fail",
            "status.inactive.after-restart": "fail",
            "status.consistency.inactive-resumable": "fail",
            "status.vocabulary.one-revision": "n/a",
            SEQ: "fail",
        },
    ),
    "resume_refuses_closed": Variant(
        1,
        {
            "status.consistency.inactive-resumable": "fail",
            "status.consistency.resume-makes-active": "fail",
            SEQ: "fail",
        },
    ),
    "status_stale_after_resume": Variant(
        1,
        {"status.consistency.resume-makes-active": "fail", "status.consistency.after-delete": "info"},
    ),
    # Load and resume take the session out of the index while they read it (300 ms): status
    # calls right behind the resume read -32002.
    "resume_checks_out_session": Variant(
        1,
        {"status.consistency.resume-makes-active": "fail"},
        focus="consistency",
        rule=("status.consistency.resume-makes-active", "known-while-resuming"),
    ),
    # Channels a side effect reaches: the turn in progress, the history load replays.
    # Status waits for the turn, and the turn for the user's permission: a status call during it is
    # unanswered at 3 s as at 10 (the default --timeout), so it runs with the shorter clock.
    "status_waits_for_turn": Variant(
        1,
        {"status.active.during-turn": "fail", "status.neighbours.sibling-turn": "fail"},
        args=("--timeout", "3"),
    ),
    "status_inactive_during_turn": Variant(
        1,
        {"status.active.during-turn": "fail", "status.overlap.race-prompt": "fail"},
    ),
    "status_cancels_turn": Variant(1, {"status.active.during-turn": "fail"}),
    "status_records_history": Variant(1, {"status.no-side-effects.history-unchanged": "fail"}),
    # session/load answers first and replays the history a moment later (blind 16, certified
    # before): the history probe's own load is held to ACP's order.
    "load_replays_after_answer": Variant(
        1,
        {"status.no-side-effects.history-unchanged": "fail"},
        focus="no-side-effects",
        rule=("status.no-side-effects.history-unchanged", "replay-before-answer"),
    ),
    # Status trims an inactive session's history to its retention limit (6 turns): only a
    # longer session shows it.
    "status_applies_retention": Variant(
        1, {"status.no-side-effects.history-unchanged": "fail"}, focus="no-side-effects"
    ),
    # ACP's stdio transport: a log line on stdout (a robustness finding: the verdict stands).
    "stdout_log_lines": Variant(0, {"transport.stdout.messages-only": "warn"}),
    # stdout that never waits: a frame that finds 64 KiB backed up is dropped (blind 16's MCP
    # server did the same, certified before): only an editor that stops reading shows it.
    "stdout_drops_when_backed_up": Variant(1, {"transport.stdio.slow-reader": "fail"}, focus="transport"),
    # stdin decoded a block at a time (blind 21's acp_chunk_decode, certified before): a block that
    # ends inside a character is dropped whole; only multi-byte text across a block's end shows it.
    "decodes_each_block": Variant(1, {"transport.stdio.slow-reader": "fail"}, focus="transport"),
    # The same with bad bytes replaced: every request answered, some ids misread.
    "decodes_each_block/replace": Variant(
        1,
        {"transport.stdio.slow-reader": "fail"},
        focus="transport",
        agent_args=("--replace",),
        rule=("transport.stdio.slow-reader", "echoed-whole"),
    ),
    # The JSON-RPC layer as clients use it (cases/acp/jsonrpc.py): status before initialize and as
    # a notification are frames no conforming client sends (robustness), an id's type is a MUST.
    "dies_before_initialize": Variant(
        0, {"transport.jsonrpc.status-before-initialize": "warn"}, focus="jsonrpc"
    ),
    "answers_status_notification": Variant(
        0, {"transport.jsonrpc.status-notification": "warn"}, focus="jsonrpc"
    ),
    "status_notification_releases": Variant(
        0, {"transport.jsonrpc.status-notification": "warn"}, focus="jsonrpc"
    ),
    "numeric_string_id_as_number": Variant(1, {"transport.jsonrpc.id-types": "fail"}, focus="jsonrpc"),
    # Id 0 answered under a number of the agent's own (a table of requests that maps back with `or`).
    "falsy_id_renumbered": Variant(1, {"transport.jsonrpc.id-types": "fail"}, focus="jsonrpc"),
    # Status calls in flight together, and beside the session's own lifecycle calls.
    "status_burst_loads": Variant(1, {**LOADS, SEQ: "fail"}),
    "status_burst_creates_unknown": Variant(1, {"status.overlap.burst-leaves-sessions": "fail", SEQ: "fail"}),
    "status_answers_crossed": Variant(
        1,
        {
            "status.overlap.answers-by-id": "fail",
            "status.overlap.burst-leaves-sessions": "fail",
            "status.neighbours.sibling-turn": "fail",
        },
    ),
    "new_rescans_index": Variant(1, {"status.overlap.answers-by-id": "fail"}),
    "status_race_close_resurrects": Variant(1, {"status.overlap.race-close": "fail", SEQ: "fail"}),
    "prompt_checks_out_session": Variant(1, {"status.overlap.race-prompt": "fail"}),
    # The turn status was asked about fails where the control turn ends: status's doing, not a
    # turn that cannot be observed.
    "status_reloads_during_turn": Variant(1, {"status.active.during-turn": "fail"}),
    # A neighbour: a closed session reads active while a sibling's turn waits on the user.
    "status_busy_agent_active": Variant(1, {"status.neighbours.sibling-turn": "fail"}),
    # Value boundaries and encodings of ids.
    # (its 10 kB unknown id makes a session the 4096-character one then names, which resumes)
    "status_long_id_creates": Variant(
        1,
        {"status.overlap.burst-leaves-sessions": "fail", "status.error.unknown-session-data": "fail"},
    ),
    "ids_cut_at_64": Variant(1, {"status.identity.long-ids": "fail", "status.identity.encoded-ids": "fail"}),
    "ids_cut_at_255": Variant(1, {"status.identity.long-ids": "fail", "status.identity.encoded-ids": "fail"}),
    # Past a file name's 255 bytes in fewer characters: the disk look-up raises (-32603).
    "status_file_probe_counts_characters": Variant(
        1, {"status.identity.long-ids": "fail"}, focus="identity or unknown_session"
    ),
    "id_percent_decoded": Variant(
        1,
        {"status.identity.encoded-ids": "fail", "status.error.unknown-session-data": "fail"},
    ),
    "id_decoded_twice": Variant(1, {"status.identity.encoded-ids": "fail"}),
    "ids_nfc_normalised": Variant(1, {"status.error.unknown-session-data": "fail"}),
    # Sequence-only: the race resurrects only a session that has had a turn.
    "status_race_close_resurrects_used": Variant(1, {SEQ: "fail"}),
}

# Served over WebSocket (--transport websocket, agent run with --listen): bugs between connections.
WS_BROKEN: dict[str, Variant] = {
    # B's status lets B prompt (a side effect, MUST), beside a twin B never asked about that B's
    # prompt cannot reach; the scripted case, whose control is another connection, only warns.
    "ws_status_registers_client": Variant(
        1,
        {SEQ: "fail", "status.connections.prompt-needs-resume": "warn"},
        rule=(SEQ, "twins-differ"),
    ),
    "ws_status_attaches": Variant(
        1,
        {"status.connections.no-attach": "fail", "status.connections.prompt-needs-resume": "warn"},
    ),
    "ws_status_per_connection": Variant(
        1,
        {
            "status.connections.active-for-any-connection": "fail",
            "status.connections.close-seen-by-other": "fail",
            "status.neighbours.sibling-turn": "fail",
        },
    ),
    "ws_status_cached": Variant(
        1,
        {
            "status.connections.close-seen-by-other": "fail",
            # A's cache outlives a close its own status calls overlapped
            "status.overlap.race-close": "fail",
            # the cached inactive outlives a resume, and a delete (where it takes the MAY path)
            "status.consistency.resume-makes-active": "fail",
            "status.consistency.after-delete": "info",
            SEQ: "fail",
        },
    ),
    # B's status calls detach A from its session: A's prompt then fails (a session B never asked about serves A).
    "ws_status_detaches_owner": Variant(1, {"status.connections.no-attach": "fail"}),
    # B's status takes A's updates over once A has been quiet for a second.
    "ws_status_takes_over_quiet_owner": Variant(1, {"status.connections.no-attach": "fail"}),
    # While a turn runs on A, B reads its session inactive.
    "ws_turn_hides_session": Variant(1, {"status.neighbours.sibling-turn": "fail"}),
    # The same on a second connection whose client declared file access.
    "client_fs_priming": Variant(
        1,
        {"status.clients.declarations": "fail"},
        focus="status.clients.",
        rule=("status.clients.declarations", "file-access"),
    ),
}
# Agents served over WebSocket that take paths the spec allows.
WS_CONFORMING_VARIANTS: dict[str, Variant] = {
    # Every connection hears every session's updates: what B gets after its status calls shows
    # nothing about attaching (a control connection that asked nothing gets them too).
    "ws_broadcasts_updates": Variant(0, {"status.connections.no-attach": "not-testable"}),
    # Serves any connection's prompt, one that never asked anything too: "MUST resume" binds
    # Clients, so the case says it cannot tell (a warning before, and a failure under --strict).
    # The sequences' B prompts both twins and is served alike: no difference.
    "ws_serves_any_prompt": Variant(
        0, {"status.connections.prompt-needs-resume": "not-testable"}, also=(SEQ,)
    ),
    # A turn sends no session/update at all: there is nothing to watch for attaching.
    "silent_turn": Variant(0, {"status.connections.no-attach": "not-testable"}),
}

# ACP v2 agents (--protocol 2): the foreground-state snapshot.
NOT_REPORTING = {
    "status.state.idle-after-turn": "n/a",
    "status.state.known-values": "n/a",
    "status.state.own-last-update": "n/a",
    "status.state.requires-action": "n/a",
    "status.state.running-during-turn": "n/a",
}
# A made-up state where the session's own updates said idle.
MADE_UP_IDLE = {"status.state.idle-after-turn": "fail", "status.state.own-last-update": "fail"}
V2_BROKEN: dict[str, Variant] = {
    # The cancel path sends idle but leaves the snapshot running.
    "v2_cancel_leaves_running": Variant(
        1, {"status.state.idle-after-turn": "fail"}, rule=("status.state.idle-after-turn", "after-cancel")
    ),
    "v2_no_state": Variant(0, {"status.state.reported": "warn", **NOT_REPORTING}),
    "v2_idle_while_asking": Variant(
        1,
        {"status.state.own-last-update": "fail", "status.state.requires-action": "warn"},
    ),
    "v2_idle_too_early": Variant(1, {"status.state.running-during-turn": "fail"}),
    # Only a prompt with a resource_link shows it: the snapshot stays idle through that turn.
    "v2_resource_link_idle": Variant(
        1,
        {"status.state.running-during-turn": "fail"},
        focus="status.state",
        message=("status.state.running-during-turn", "resource_link"),
    ),
    # `running` set when a prompt arrives, before admission: a refused (empty) prompt leaves it.
    "v2_running_before_admission": Variant(
        1,
        {"status.state.idle-after-turn": "fail"},
        focus="status.state",
        rule=("status.state.idle-after-turn", "refused-prompt"),
    ),
    "v2_stuck_running": Variant(
        1, {"status.state.idle-after-turn": "fail", "status.state.own-last-update": "fail"}
    ),
    # Robustness: a status notification (no id) cancels the turn; shown, not deciding the verdict.
    "v2_notification_cancels_turn": Variant(0, {"transport.notification.leaves-turn": "warn"}),
    "v2_status_sends_state_update": Variant(
        1,
        {
            "status.state.no-state-update": "fail",
            "status.no-side-effects.no-notifications": "fail",
            SEQ: "fail",
        },
    ),
    # The two kinds of unrecognised state say which they are.
    "v2_unknown_state": Variant(
        1,
        {**MADE_UP_IDLE, "status.state.known-values": "warn"},
        message=("status.state.known-values", "unrecognised foreground state"),
    ),
    "v2_extension_state": Variant(
        1,
        {**MADE_UP_IDLE, "status.state.known-values": "warn"},
        message=("status.state.known-values", "extension foreground state {'new': '_resting'"),
    ),
    # Status sent while the turn works, answered `idle` only once it ended: evidence, not n/a.
    "v2_status_waits_then_idle": Variant(1, {"status.state.running-during-turn": "fail"}),
    # A neighbour's state read as the session's own.
    "v2_state_from_connection": Variant(1, {"status.state.own-last-update": "fail"}),
    "v2_sibling_running_read_as_own": Variant(1, {"status.state.own-last-update": "fail"}),
    # `running` while blocked on the user, with no other work: the SHOULD of requires_action.
    "v2_running_while_blocked": Variant(0, {"status.state.requires-action": "warn"}),
    # Status drops the pending permission request and abandons the turn: no update ever ends it,
    # and the snapshot says idle. Each wait for its end stops --timeout after that answer.
    "v2_status_drops_permission": Variant(
        1,
        {
            "status.active.during-turn": "fail",
            "status.state.own-last-update": "fail",
            "status.state.requires-action": "warn",
        },
        focus="status.state or status.active",
        args=("--timeout", "3"),  # each wait for the abandoned turn ends this long after the snapshot
    ),
    # The session is out of the pool while its turn works: status during the turn reads inactive,
    # with no snapshot (the state cases that ask during a turn have none to judge).
    "v2_prompt_checks_out_session": Variant(
        1,
        {
            "status.active.during-turn": "fail",
            "status.state.requires-action": "n/a",
            "status.state.running-during-turn": "n/a",
        },
        focus="status.state or status.active",
    ),
}

# v2 agents that take paths the spec allows: their outcomes differ from the baseline, all legally.
V2_CONFORMING_VARIANTS: dict[str, Variant] = {
    # The permission request comes 0.3 s after the prompt's answer (v2 answers at once).
    "v2_late_permission": Variant(0, {}),
    # A title 0.3 s after each turn's idle state_update: no snapshot case may count it.
    "v2_slow_title": Variant(0, {}),
    # The idle update that ends a turn carries no stopReason (a SHOULD): the turn comparisons
    # have nothing to compare (during-turn still judges its status answers, and says so).
    "v2_no_stop_reason": Variant(0, {"transport.notification.leaves-turn": "not-testable"}),
    # `running` while another tool call of the turn streams beside a pending permission request:
    # the workflow can progress, so `running` is right (requires_action is a SHOULD, for a workflow that cannot progress).
    "v2_running_beside_permission": Variant(0, {}),
}

# The sequence-only agents, with the length of their minimal reproduction.
SEQUENCE_ONLY = {
    "status_race_close_resurrects_used": 4,
    "third_status_loads": 6,
    "status_duplicates_after_resume": 5,
    "status_evicts_after_cancel": 4,
    "status_meta_attaches": 4,
    "status_flushes_load_replay": 4,
}

# The RFD's MAY path (inactive for ids not in memory) taken for the boundary forms of a live id.
MAY_PATH_FORMS = {"status.identity.long-ids": "info", "status.identity.encoded-ids": "info"}

# How the client cases reached the agent: a second process beside the first on stdio, or (an agent
# that runs one process per working directory) the agent restarted for that client.
CLIENT_CONNECTION = {
    "client_fs_reader": "a second agent process (",
    "single_instance": "the agent restarted for",
}

# Which session/list the cheapness case took as its baseline.
LIST_BASELINE = {"list_refuses_other_cwd": "run", "status_slower_than_busy_list": "empty"}

CLIENT_CASES = ("status.clients.declarations",)
CLIENT_RULES = ("file-access", "minimal-initialize")

# Agents that take paths the spec allows: their outcomes differ from the baseline, all legally.
CONFORMING_VARIANTS: dict[str, Variant] = {
    # MCP servers given to session/new: started before it answers (a second and more), or refused.
    "mcp_servers_started": Variant(0, {}, focus="status.active."),
    "mcp_servers_refused": Variant(0, {}, focus="status.active."),
    # Reads and writes files through an editor client, after session/new and in each turn.
    "client_fs_reader": Variant(0, {}, focus="status.clients.", also=CLIENT_CASES),
    # One process per working directory: a second process beside the first exits at once, so the
    # client cases restart the agent for their client instead.
    "single_instance": Variant(0, {}, focus="status.clients.", also=CLIENT_CASES),
    "open_saved": Variant(0, {}, revision=UNSTABLE),
    "may_inactive": Variant(
        0,
        {
            "status.error.unknown-session-code": "info",
            "status.unknown.may-inactive": "info",
            "status.identity.id-variants": "info",
            "status.identity.empty-id": "info",
            "status.consistency.after-delete": "info",
            **MAY_PATH_FORMS,
            **UNKNOWN_IDS_ANSWERED_AS_RESULT,
        },
    ),
    # A -32002 message in German: the specs' "Resource not found" is an example, not a wording.
    "localised_error_message": Variant(0, {}, focus="status.error"),
    # Whitespace between every JSON token and CRLF line ends: the same messages.
    "crlf_spaced_frames": Variant(0, {}),
    # Every method treats two spellings of an id as one session: consistent, so conforming.
    "ids_case_insensitive_everywhere": Variant(0, {}),
    # Status refuses an id that is not ASCII as invalid params: no session either.
    "non_ascii_ids_refused": Variant(0, {}),
    # Close frees the session entirely though resume is advertised: -32002 after close, as resume says.
    "close_forgets": Variant(
        0,
        {
            "status.consistency.resume-makes-active": "n/a",
            "status.no-side-effects.history-unchanged": "n/a",
            "status.vocabulary.one-revision": "n/a",
        },
    ),
    # session/list filters by cwd the wrong way round (its own contract, not status's): the list
    # probe cannot see the session it watches, so the case says not testable instead of passing.
    "list_other_cwd": Variant(0, {"status.no-side-effects.list-unchanged": "not-testable"}),
    # session/list refuses a directory it has no session in: the cheapness case's empty-directory
    # baseline is refused, and it measures against the run's own directory instead (named here,
    # as an expected pass, so that this costly case runs for it).
    "list_refuses_other_cwd": Variant(0, {"status.cheap.latency": "pass"}),
    # Updates of its own a moment after session/new and after each turn (a command list, a title
    # that changes the list entry): no status case may count them, the sequences neither.
    "late_updates": Variant(0, {SEQ: "pass"}),
    # Its title after a turn reaches the client during the session/load that follows (which takes
    # 60 ms to answer): one replay carries it, the next not. The history case looks again once the
    # session is quiet instead of calling the history not testable.
    "late_title_during_load": Variant(0, {"status.no-side-effects.history-unchanged": "pass"}),
    # Its load streams the history in 5-character pieces, 2 ms apart, and answers after the last.
    "load_replays_slowly_in_chunks": Variant(0, {"status.no-side-effects.history-unchanged": "pass"}),
    # stdout never drained: what the editor has not read waits in the agent's own buffer.
    "stdout_never_drains": Variant(0, {"transport.stdio.slow-reader": "pass"}, focus="transport"),
    # Its turn asks permission 5.5 s in: the cases that need a turn in progress still see one.
    "slow_permission": Variant(0, {}),
    # A title made by a model call 0.3 s after each turn (a session_info_update, a new list entry),
    # past the agent's quiet moment: the control sessions show it is the agent's own.
    "slow_title": Variant(0, {}),
    # Its turn honours the permission answer (`cancelled` cancels it): the suite answers with the
    # reject option it offers, so the turns end alike and are compared.
    "permission_answer_honoured": Variant(0, {}),
    # The MAY path (inactive for anything not in memory) and a close that frees the session: a
    # closed session then resumes with -32002, as the MAY sentence says.
    "may_inactive_close_forgets": Variant(
        0,
        {
            "status.consistency.after-delete": "info",
            "status.consistency.inactive-resumable": "info",
            "status.consistency.resume-makes-active": "n/a",
            "status.error.unknown-session-code": "info",
            "status.identity.empty-id": "info",
            "status.identity.id-variants": "info",
            "status.no-side-effects.history-unchanged": "n/a",
            "status.unknown.may-inactive": "info",
            **MAY_PATH_FORMS,
            **UNKNOWN_IDS_ANSWERED_AS_RESULT,
        },
    ),
    # Its model backend is down: every prompt fails. The prompt probes say they cannot observe (a
    # prompt on a fresh session fails too), and the sequences do not read a failed prompt as an
    # eviction.
    "prompt_fails": Variant(
        0,
        {
            "status.active.during-turn": "n/a",
            "transport.notification.leaves-turn": "n/a",
            "status.no-side-effects.active-accepts-prompt": "not-testable",
            "status.no-side-effects.history-unchanged": "not-testable",
            "status.no-side-effects.twins-use": "not-testable",
            "status.neighbours.sibling-turn": "n/a",
            SEQ: "pass",
        },
    ),
    # Resume of any unknown id creates it, while status says -32002 truthfully: the control shows
    # the resume probe cannot tell what status did.
    "resume_creates_unknown": Variant(
        0,
        {
            "status.no-side-effects.unknown-stays-unknown": "not-testable",
            "status.overlap.burst-leaves-sessions": "not-testable",
        },
    ),
    # Extra result members and _meta, extra -32002 data, no permission ever asked.
    "extra_fields": Variant(
        0,
        {
            "status.active.during-turn": "n/a",
            "transport.notification.leaves-turn": "n/a",
            "status.neighbours.sibling-turn": "n/a",
        },
    ),
    # Status calls served one at a time, in order, each after a 1 ms storage read.
    "serial_status": Variant(0, {}),
    # An autosave timer bumps every in-memory session's updatedAt each second, asked about or not.
    "autosave": Variant(0, {"status.no-side-effects.twins-later": "pass"}),
    # A background flush of each session half a second after its turn answered.
    "prompt_flushes_later": Variant(0, {"status.no-side-effects.twins-later": "pass"}),
    # Status calls that arrive together answered newest first: answers are matched by id.
    "newest_first": Variant(0, {}),
    # `_vendor.example/...` notifications on a timer (about no session, and about the newest
    # session): nothing ties them to a status call. Its notifications every 30 ms keep the agent
    # from ever being quiet: each quiet wait of the side-effect cases ends at --timeout, and 2 s of
    # beats (about 60) is as much evidence as 10.
    "extension_notifications": Variant(0, {SEQ: "pass"}, args=("--timeout", "2")),
}


def list_baseline(run: Run, name: str, variant: Variant) -> None:
    if name in LIST_BASELINE:
        assert run.case("status.cheap.latency")["details"]["list_cwd"] == LIST_BASELINE[name]
    if name in CLIENT_CONNECTION:
        details = run.case("status.clients.declarations")["details"]
        for rule in CLIENT_RULES:
            assert details[rule]["connection"].startswith(CLIENT_CONNECTION[name]), (rule, details)
        if name == "single_instance":
            assert "did not come up beside the first" in details["second_process"], details


def on_websocket(run: Run, name: str, variant: Variant) -> None:
    assert run.report is not None
    assert run.report["system"]["transport"] == "websocket"
    for case_id, outcome in variant.delta.items():
        got = run.case(case_id)
        assert got["message"] and got["transcript"], case_id
        if case_id.startswith("status.connections.") and outcome == "fail":
            assert any(f.get("conn") == "B" for f in got["transcript"]), "connection B's frames are labelled"


def on_v2(run: Run, name: str, variant: Variant) -> None:
    assert run.report is not None
    assert run.report["acp"]["protocolVersion"] == 2 and run.report["system"]["protocol"] == "2"


def command(name: str, variant: Variant, *args: str) -> str:
    """The variant's command: tests/agents/acp/FILE.py for a NAME or FILE/configuration, with its
    own flags."""
    return agent_command(file_of(name), *args, *variant.agent_args)


def over_stdio(name: str, variant: Variant) -> tuple[str, ...]:
    return ("--agent", command(name, variant))


def over_websocket(name: str, variant: Variant) -> tuple[str, ...]:
    return ("--transport", "websocket", "--agent", command(name, variant, "--listen", "127.0.0.1:0"))


def in_v2(name: str, variant: Variant) -> tuple[str, ...]:
    return ("--protocol", "2", "--agent", command(name, variant))


STDIO = Table("acp", BASELINE, over_stdio, by_area(BROKEN), revision="rfd-2026-10-26", check=list_baseline)
STDIO_CONFORMING = Table(
    "acp",
    BASELINE,
    over_stdio,
    CONFORMING_VARIANTS,
    conforming=True,
    revision="rfd-2026-10-26",
    check=list_baseline,
)
WS = Table("acp", WS_BASELINE, over_websocket, by_area(WS_BROKEN), check=on_websocket)
WS_CONFORMING = Table(
    "acp", WS_BASELINE, over_websocket, WS_CONFORMING_VARIANTS, conforming=True, check=on_websocket
)
V2 = Table("acp", V2_BASELINE, in_v2, by_area(V2_BROKEN), check=on_v2)
V2_CONFORMING = Table("acp", V2_BASELINE, in_v2, V2_CONFORMING_VARIANTS, conforming=True, check=on_v2)


def tables() -> list[Table]:
    """Every table of ACP variants: these, test_twins.py's, and Streamable HTTP's (test_websocket.py)."""
    from tests.targets.acp.test_twins import TABLES as TWINS_TABLES
    from tests.targets.acp.test_websocket import HTTP_CONNECTIONS

    return [STDIO, STDIO_CONFORMING, WS, WS_CONFORMING, V2, V2_CONFORMING, *TWINS_TABLES, HTTP_CONNECTIONS]


def table_of(*found: Table) -> dict[str, Table]:
    return {name: table for table in found for name in table.variants}


STDIO_TABLES = table_of(STDIO, STDIO_CONFORMING)
WS_TABLES = table_of(WS, WS_CONFORMING)
V2_TABLES = table_of(V2, V2_CONFORMING)


@pytest.mark.slow
@pytest.mark.parametrize("agent", sorted(STDIO_TABLES))
def test_agent_gets_exactly_its_outcomes(agent: str, direct) -> None:
    certify(direct, STDIO_TABLES[agent], agent)


@pytest.mark.slow
@pytest.mark.parametrize("agent", sorted(WS_TABLES))
def test_websocket_agent_gets_exactly_its_outcomes(agent: str, direct) -> None:
    certify(direct, WS_TABLES[agent], agent)


@pytest.mark.slow
@pytest.mark.parametrize("agent", sorted(V2_TABLES))
def test_v2_agent_gets_exactly_its_outcomes(agent: str, direct) -> None:
    certify(direct, V2_TABLES[agent], agent)


def test_an_agent_that_requires_authentication_is_told_what_to_pass(suite, direct) -> None:
    """session/new answers auth_required (-32000) until authenticate: without --auth-method the
    run stops at once with a usage error naming the method to pass; with it, it certifies."""
    agent = agent_command("auth_required")
    told = suite("--agent", agent, "-k", "after-new")
    assert told.code == 2, told.stderr[-2000:]
    assert "pass --auth-method ID (it offers: api-key)" in told.stderr.strip().splitlines()[-1]
    told_the_method = Variant(0, args=("--auth-method", "api-key"))
    certify(direct, Table("acp", BASELINE, over_stdio, {"auth_required": told_the_method}), "auth_required")


def test_v2_agent_without_status_is_unimplemented_in_v2_words(suite) -> None:
    """Exit 3, and the one-line verdict and each case's reason name v2's capability path."""
    run = suite("--protocol", "2", "--agent", agent_command("v2_no_status_capability"), "-k", "status.state")
    assert run.code == 3, run.stderr[-2000:]
    last = run.stderr.splitlines()[-1]
    assert "capabilities.session.status" in last and "sessionCapabilities" not in last, last
    reasons = {c["message"] for c in run.report["cases"] if c["outcome"] == "unimplemented"}
    assert reasons == {"the agent does not advertise capabilities.session.status"}, reasons


# The v2 reference agent, every case: tests/e2e/test_readme_commands.py
# runs it as the README's `--protocol 2`.


def test_every_case_is_caught_by_a_broken_agent() -> None:
    assert uncaught("acp", tables()) == set(), "cases no broken agent makes fail or warn"


def test_every_broken_agent_is_listed() -> None:
    others = {
        "v2_no_status_capability",  # its own test: the v2 wording of "unimplemented"
        # The campaign tests' rare bug (a second `_meta` status of an inactive session attaches
        # it, now and then), a rarer status_meta_attaches: tests/e2e/test_campaign.py runs it.
        "rare_meta_attaches",
        "auth_required",  # its own test: what to pass, then a certificate
    }
    assert unlisted("acp", tables(), others=others) == (set(), set())


def test_the_audit_is_backed_by_these_variants() -> None:
    """Each variant the ACP audit names makes the check it names fail or warn here."""
    assert audit_not_backed("acp", tables()) == []

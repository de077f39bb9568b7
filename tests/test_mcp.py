"""The MCP target: the reference server is certified over stdio and Streamable HTTP, and every
heartbeat case is shown to fail by a broken server in tests/agents/mcp built for it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import cases
from conformance.registry import CASES

from .conftest import AGENTS, ROOT, focused, listening

cases.load_all()

MCP_AGENTS = AGENTS / "mcp"
HEARTBEAT = sorted(c for c in CASES if CASES[c].target == "mcp")
ACCESS = [c for c in HEARTBEAT if c.startswith("heartbeat.access.")]
INSTRUCTIONS = [c for c in HEARTBEAT if c.startswith("heartbeat.instructions.")]
# Over Streamable HTTP, with two callers and the operator endpoint, every case runs.
HTTP_BASELINE = dict.fromkeys(HEARTBEAT, "pass")
# Over stdio there is one caller: the access cases say what to pass instead.
STDIO_BASELINE = HTTP_BASELINE | dict.fromkeys(ACCESS, "not-testable")
REFERENCE_INSTRUCT_CMD = f"{sys.executable} -m conformance.reference.mcp_instruct {{sessionId}} {{text}}"
HTTP_OPTIONS = (
    "--transport",
    "http",
    "--instruct-url",
    "{baseUrl}/operator/instructions",
    "--header",
    "Authorization=Bearer caller-a",
    "--other-header",
    "Authorization=Bearer caller-b",
)
SEQ = "heartbeat.instructions.model-based"
ARGS = [c for c in HEARTBEAT if c.startswith("heartbeat.args.") and c != "heartbeat.args.valid-call-succeeds"]

# server file in tests/agents/mcp -> (exit code, outcomes that differ from HTTP_BASELINE)
BROKEN: dict[str, tuple[int, dict[str, str]]] = {
    "no_tool": (3, dict.fromkeys(HEARTBEAT, "unimplemented")),
    "schema_key_optional": (1, {"heartbeat.schema.required": "fail"}),
    "schema_requires_status": (1, {"heartbeat.schema.required": "fail"}),
    "schema_open": (1, {"heartbeat.schema.closed": "fail"}),
    "schema_loose_fields": (1, {"heartbeat.schema.properties": "fail"}),
    "rejects_fractional_progress": (1, {"heartbeat.args.valid-call-succeeds": "fail"}),
    "accepts_progress_150": (1, {"heartbeat.args.progress-out-of-range": "fail"}),
    "accepts_missing_key": (1, {"heartbeat.args.missing-idempotency-key": "fail"}),
    "accepts_missing_session": (1, {"heartbeat.args.missing-session-id": "fail"}),
    "accepts_step_zero": (1, {"heartbeat.args.step-index-zero": "fail"}),
    "accepts_step_count_1001": (1, {"heartbeat.args.step-count-too-large": "fail"}),
    "accepts_any_status": (1, {"heartbeat.args.status-outside-enum": "fail"}),
    "accepts_unknown_property": (1, {"heartbeat.args.unknown-property": "fail"}),
    "accepts_half_step_pair": (0, {"heartbeat.args.step-pair": "warn"}),
    # A wrong error code for every invalid call: each rejection case says so.
    "invalid_as_internal_error": (1, dict.fromkeys(ARGS, "fail") | {"heartbeat.args.step-pair": "warn"}),
    # No idempotency at all: the retry is executed again, and a reused key is not noticed.
    "retry_executes_again": (
        1,
        {
            "heartbeat.idempotency.retry-same-result": "fail",
            "heartbeat.idempotency.not-applied-twice": "fail",
            "heartbeat.idempotency.key-reuse-different-args": "warn",
        },
    ),
    "retry_reapplies": (1, {"heartbeat.idempotency.not-applied-twice": "fail"}),
    # Deduplicating by arguments also answers a later "plain" heartbeat with an old cached page.
    "dedupe_by_arguments": (
        1,
        {
            "heartbeat.idempotency.new-key-new-call": "fail",
            "heartbeat.idempotency.key-reuse-different-args": "warn",
            "heartbeat.instructions.acked-never-again": "fail",
            SEQ: "fail",
        },
    ),
    "key_reuse_accepted": (0, {"heartbeat.idempotency.key-reuse-different-args": "warn"}),
    # Nothing delivered: every instruction case fails (the access control case is not testable: a fail).
    "never_delivers": (
        1,
        {c: "fail" for c in INSTRUCTIONS if c != "heartbeat.instructions.per-session"}
        | {"heartbeat.access.other-caller-no-change": "fail"},
    ),
    "delivers_once": (
        1,
        {
            "heartbeat.instructions.unacked-redelivered": "fail",
            "heartbeat.instructions.acked-never-again": "fail",
            "heartbeat.access.other-caller-no-change": "fail",
            SEQ: "fail",
        },
    ),
    "redelivers_acked": (1, {"heartbeat.instructions.acked-never-again": "fail", SEQ: "fail"}),
    "paging_skips": (1, {"heartbeat.instructions.paging": "fail", SEQ: "fail"}),
    "paging_repeats": (1, {"heartbeat.instructions.paging": "fail", SEQ: "fail"}),
    "shared_queue": (1, {"heartbeat.instructions.per-session": "fail", SEQ: "fail"}),
    "drops_after_empty": (1, {SEQ: "fail"}),
    "no_ownership": (
        1,
        {"heartbeat.access.other-caller-rejected": "fail", "heartbeat.access.other-caller-no-change": "fail"},
    ),
    "leaky_denial": (1, {"heartbeat.access.other-caller-rejected": "fail"}),
    "acks_before_access_check": (1, {"heartbeat.access.other-caller-no-change": "fail"}),
    "other_names": (0, {}),  # pendingInstructions / nextInstructionCursor: recognised by default
}
# Hand-written on stdio (no SDK): results the SDK would not let the reference build.
STDIO_BROKEN = {
    "result_not_tool_result": (1, {"heartbeat.result.shape": "fail"}),
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
        ),
    ),
}
MESSAGES = {
    "invalid_as_internal_error": ("heartbeat.args.unknown-property", "JSON-RPC error -32603"),
    "leaky_denial": ("heartbeat.access.other-caller-rejected", "reveals caller A's session"),
    "drops_after_empty": (SEQ, "missing from a full drain"),
}


def _server(name: str) -> str:
    return f"{sys.executable} {MCP_AGENTS / name}.py --http 127.0.0.1:0"


@pytest.mark.slow
@pytest.mark.parametrize("server", sorted(BROKEN))
def test_broken_server_gets_exactly_its_outcomes(server: str, suite) -> None:
    code, delta = BROKEN[server]
    selection, expected = focused(HTTP_BASELINE, delta, SEQ)
    run = suite("--mcp-cmd", _server(server), *HTTP_OPTIONS, *selection)
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == code, run.stderr[-2000:]
    assert run.report["target"] == "mcp"
    if server in MESSAGES:
        case_id, text = MESSAGES[server]
        assert text in run.case(case_id)["message"]
    run.assert_explained(delta)


@pytest.mark.parametrize("server", sorted(STDIO_BROKEN))
def test_stdio_broken_server_gets_exactly_its_outcomes(server: str, suite) -> None:
    code, delta = STDIO_BROKEN[server]
    run = suite(
        "--mcp-cmd", f"{sys.executable} {MCP_AGENTS / server}.py", "--instruct-cmd", REFERENCE_INSTRUCT_CMD
    )
    expected = STDIO_BASELINE | delta
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == code


def test_reference_server_is_certified_over_stdio(suite) -> None:
    run = suite("--target", "mcp")
    assert run.outcomes == STDIO_BASELINE, run.diff(STDIO_BASELINE)
    assert run.code == 0, run.stderr
    assert run.report["spec"]["revision"] == "mcp-session-heartbeat-2025-06-18"
    assert run.report["agent"]["agentInfo"]["name"] == "session-heartbeat-reference"
    assert "conformant" in run.stderr.splitlines()[-1]
    access = run.case("heartbeat.access.other-caller-rejected")
    assert "--other-header" in access["message"]  # says what to pass
    coverage = run.report["traceability"]
    assert coverage["revision"] == "mcp-session-heartbeat-2025-06-18" and coverage["tested"] >= 10


def test_reference_server_is_certified_over_http(suite) -> None:
    run = suite("--target", "mcp", "--transport", "http")
    assert run.outcomes == HTTP_BASELINE, run.diff(HTTP_BASELINE)
    assert run.code == 0, run.stderr
    rejected = run.case("heartbeat.access.other-caller-rejected")
    assert any(f.get("conn") == "B" for f in rejected["transcript"]), "caller B's frames are labelled"
    report = json.dumps(run.report)
    assert "Bearer conformance-" not in report, "credentials are redacted"


def test_server_already_listening_with_mcp_url(suite, tmp_path) -> None:
    with listening(
        [sys.executable, "-m", "conformance.reference.mcp_server", "--http", "127.0.0.1:0"]
    ) as url:
        run = suite("--mcp-url", url, *HTTP_OPTIONS[2:])
    assert run.outcomes == HTTP_BASELINE, run.diff(HTTP_BASELINE)
    assert run.code == 0


def test_without_an_operator_hook_instruction_cases_are_not_testable(suite) -> None:
    run = suite("--mcp-cmd", f"{sys.executable} -m conformance.reference.mcp_server")
    expected = STDIO_BASELINE | dict.fromkeys(INSTRUCTIONS, "not-testable")
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == 0
    assert "--instruct-cmd" in run.case("heartbeat.instructions.delivered")["message"]
    assert run.report["counts"]["by_outcome"]["not-testable"] == len(INSTRUCTIONS) + len(ACCESS)


def test_result_paths_are_configurable(suite) -> None:
    server = f"{sys.executable} {MCP_AGENTS / 'custom_result_shape'}.py"
    hook = ("--instruct-cmd", REFERENCE_INSTRUCT_CMD)
    blind = suite("--mcp-cmd", server, *hook)
    message = blind.case("heartbeat.instructions.delivered")["message"]
    assert blind.outcomes["heartbeat.instructions.delivered"] == "not-testable"
    assert "queue" in message and "--instructions-path" in message  # names what the result has
    told = suite(
        "--mcp-cmd", server, *hook, "--instructions-path", "/queue/items", "--cursor-path", "/queue/after"
    )
    assert told.outcomes == STDIO_BASELINE, told.diff(STDIO_BASELINE)


def test_failing_sequence_replays(suite, tmp_path) -> None:
    run = suite(
        "--mcp-cmd",
        f"{sys.executable} {MCP_AGENTS / 'redelivers_acked'}.py",
        "--instruct-cmd",
        REFERENCE_INSTRUCT_CMD,
        "-k",
        SEQ,
    )
    replay = run.case(SEQ)["details"]["replay_file"]
    assert len(run.case(SEQ)["details"]["steps"]) <= 5  # shrunk: enqueue, a delivery, an ack, a delivery
    still = _replay(replay)
    assert still.returncode == 1 and "STILL FAILING" in still.stdout
    fixed = _replay(replay, "--agent", f"{sys.executable} -m conformance.reference.mcp_server")
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
    assert files == set(BROKEN) | set(STDIO_BROKEN) | {"custom_result_shape"}


def _replay(path: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "runner.py"), "replay", path, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )

"""MCP's two protocol eras, end to end: the reference certified over each wire revision its
revision file records, on stdio and Streamable HTTP; a modern-only server and a stateless HTTP
server certified, and refused in plain words in the era they do not speak; the era variants in the
eras where their bugs show and where they hide; --mcp-protocol both; what each era puts on the
HTTP wire; honest messages when nothing answers."""

from __future__ import annotations

import inspect
import json
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.core import revisions
from conformance.core.config import UsageError
from conformance.core.registry import CASES
from tests import readme
from tests.conftest import ROOT, Run, python_command
from tests.targets.mcp.test_mcp import (
    HTTP_BASELINE,
    HTTP_OPTIONS,
    MCP_AGENTS,
    REFERENCE_INSTRUCT_CMD,
    SEQ,
    STDIO_BASELINE,
    http_start,
    stdio_start,
)
from tests.variants import Table, Variant, certify, file_of

WIRE_REVISIONS = revisions.get("mcp-session-heartbeat-2025-06-18").wire_revisions
SAME = "heartbeat.wire.same-answers"
IDENTITY = "heartbeat.wire.server-identity"
# The handshake era names the server once, in initialize: the per-result identity is n/a there.
HANDSHAKE_ERA = {IDENTITY: "n/a"}
# A server that speaks one era: there is no other to compare with.
ONE_ERA = {SAME: "n/a", "heartbeat.wire.version-negotiation": "n/a"}
# Over Streamable HTTP without a protocol session (Mcp-Session-Id) no stream is open once a
# request's result went out: nothing can come after it.
NO_LATE_STREAM = {"heartbeat.wire.progress-ends-with-call": "n/a"}
REFERENCE = ("-m", "conformance.reference.mcp.server")
STDIO_HOOK = ("--instruct-cmd", REFERENCE_INSTRUCT_CMD)


def reference(*flags: str, http: bool = False) -> str:
    return python_command(*REFERENCE, *(("--http", "127.0.0.1:0") if http else ()), *flags)


def variant(name: str, *flags: str, http: bool = True) -> str:
    return python_command(
        str(MCP_AGENTS / f"{name}.py"), *(("--http", "127.0.0.1:0") if http else ()), *flags
    )


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("wire", WIRE_REVISIONS)
def test_the_reference_is_certified_over_each_recorded_wire_revision(
    wire: str, transport: str, direct
) -> None:
    if transport == "http":
        run = direct("--mcp-cmd", reference(http=True), *HTTP_OPTIONS, "--mcp-protocol", wire)
        expected = dict(HTTP_BASELINE)
    else:
        run = direct("--mcp-cmd", reference(), *STDIO_HOOK, "--mcp-protocol", wire)
        expected = dict(STDIO_BASELINE)
    if wire == "2025-06-18":
        expected |= HANDSHAKE_ERA
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == 0, run.stderr
    assert run.report["wire"]["revision"] == wire
    assert run.report["spec"]["wireRevisions"] == list(WIRE_REVISIONS)
    assert run.case(SAME)["details"]["eras"] == [wire, next(w for w in WIRE_REVISIONS if w != wire)]


def test_the_recorded_wire_revisions_are_the_ones_the_suite_speaks() -> None:
    from conformance.targets.mcp.era import MODERN, SPEC_WIRE

    assert set(WIRE_REVISIONS) == {SPEC_WIRE, MODERN}


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_modern_only_server_is_certified(transport: str, direct) -> None:
    """The SDK's client opens with server/discover: so does auto, and the server is certified; the
    era it refuses is the one comparison it cannot have."""
    if transport == "http":
        run = direct("--mcp-cmd", reference("--modern-only", http=True), *HTTP_OPTIONS)
        expected = HTTP_BASELINE | ONE_ERA | NO_LATE_STREAM
    else:
        run = direct("--mcp-cmd", reference("--modern-only"), *STDIO_HOOK)
        expected = STDIO_BASELINE | ONE_ERA
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == 0, run.stderr
    assert run.report["wire"]["revision"] == "2026-07-28"
    assert "-32022" in run.case(SAME)["message"] and "2025-06-18" in run.case(SAME)["message"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_modern_only_server_refused_in_the_handshake_era_is_told_what_to_pass(
    transport: str, suite
) -> None:
    args = ("--transport", "http") if transport == "http" else ()
    run = suite(
        "--mcp-cmd",
        reference("--modern-only", http=transport == "http"),
        *args,
        "--mcp-protocol",
        "2025-06-18",
    )
    said = run.stderr.strip().splitlines()[-1]
    assert run.code == 2, run.stderr[-2000:]
    assert "does not speak MCP 2025-06-18" in said and "-32022" in said
    assert "speaks 2026-07-28, the stateless era (server/discover)" in said
    assert "pass --mcp-protocol 2026-07-28" in said
    # Described before the handshake: an MCP run, checked against MCP's revision, not ACP's.
    assert run.report is not None
    assert (run.report["target"], run.report["subject"]) == ("mcp", "MCP session_heartbeat tool")
    assert run.report["spec"]["revision"] == "mcp-session-heartbeat-2025-06-18"
    assert run.report["traceability"]["revision"] == "mcp-session-heartbeat-2025-06-18"
    summary = (run.report_dir / "summary.md").read_text()
    assert "session/status" not in summary and "rfd-2026-10-26" not in summary


@pytest.mark.slow
@pytest.mark.parametrize("wire", WIRE_REVISIONS)
def test_a_stateless_http_server_is_certified(wire: str, direct) -> None:
    """No protocol session (stateless_http=True): the SDK holds a GET to it open, which the suite no
    longer sends; every request is a connection of its own."""
    run = direct("--mcp-cmd", reference("--stateless-http", http=True), *HTTP_OPTIONS, "--mcp-protocol", wire)
    expected = HTTP_BASELINE | NO_LATE_STREAM | (HANDSHAKE_ERA if wire == "2025-06-18" else {})
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == 0, run.stderr


# The era variants in the eras where their bugs show and where they hide, a table per transport:
# NAME/era -> the exit code and the outcomes that differ from the transport's baseline in that era
# (the server's flags: agent_args; the era asked for: args; "auto" asks for none). Each runs the
# comparison of the eras and the area its bug is in.
# ack-some needs three instructions on two pages: the second one lost, it cannot acknowledge.
CURSOR_LOST = {
    "heartbeat.instructions.paging": "fail",
    SEQ: "fail",
    "heartbeat.instructions.ack-some": "fail",
}
CURSOR_AREAS = "heartbeat.wire. or heartbeat.instructions."
RETRY_AREAS = "heartbeat.wire. or heartbeat.idempotency."
HANDSHAKE = ("--mcp-protocol", "2025-06-18")
STATELESS = ("--mcp-protocol", "2026-07-28")
ERA_HTTP = Table(
    "mcp",
    HTTP_BASELINE,
    http_start,
    {
        # Cursor state kept on the connection: hidden by one stateful connection (the handshake era
        # over HTTP or stdio), lost when every request is a connection (stateless HTTP; 2026-07-28
        # on stdio too).
        "connection_cursor/2025-06-18": Variant(0, HANDSHAKE_ERA, focus=CURSOR_AREAS, args=HANDSHAKE),
        "connection_cursor/stateless-http 2025-06-18": Variant(
            1,
            CURSOR_LOST | HANDSHAKE_ERA,
            focus=CURSOR_AREAS,
            agent_args=("--stateless-http",),
            args=HANDSHAKE,
        ),
        # Found from either era: the comparison runs the other one.
        "era_dependent_retry/2025-06-18": Variant(
            0, {SAME: "warn"} | HANDSHAKE_ERA, focus=RETRY_AREAS, args=HANDSHAKE
        ),
        # The identity is the stateless era's: over 2025-06-18 initialize names the server.
        "modern_drops_identity/2025-06-18": Variant(0, HANDSHAKE_ERA, focus=RETRY_AREAS, args=HANDSHAKE),
    },
)
ERA_STDIO = Table(
    "mcp",
    STDIO_BASELINE,
    stdio_start,
    {
        # connection_cursor (ERA_HTTP): the stateless era's requests are connections of their own on
        # stdio too; the handshake era keeps one.
        "connection_cursor/2026-07-28": Variant(1, CURSOR_LOST, focus=CURSOR_AREAS, args=STATELESS),
        "connection_cursor/2025-06-18": Variant(0, HANDSHAKE_ERA, focus=CURSOR_AREAS, args=HANDSHAKE),
        "era_dependent_retry/auto": Variant(0, {SAME: "warn"}, focus=RETRY_AREAS),
        # Acknowledgements dropped in the handshake era only: a run in the stateless era finds them
        # where the case repeats itself on a handshake-era connection.
        "handshake_era_ignores_acks/auto": Variant(
            1,
            {"heartbeat.instructions.acked-never-again": "fail"},
            focus="heartbeat.instructions.acked-never-again",
            message=("heartbeat.instructions.acked-never-again", "in MCP 2025-06-18"),
        ),
        "names_its_wire/auto": Variant(0, {}, focus=RETRY_AREAS),
    },
)
ERA_RUNS = [(table, name) for table in (ERA_HTTP, ERA_STDIO) for name in table.variants]


def era_id(table: Table, name: str) -> str:
    """The test's id: the server, "stdio" on stdio, its flags and the suite's options."""
    variant = table.variants[name]
    stdio = ("stdio",) if table is ERA_STDIO else ()
    return " ".join((file_of(name), *stdio, *variant.agent_args, *variant.args))


@pytest.mark.slow
@pytest.mark.parametrize(("table", "server"), ERA_RUNS, ids=[era_id(t, n) for t, n in ERA_RUNS])
def test_era_variants_get_exactly_their_outcomes_in_each_era(table: Table, server: str, direct) -> None:
    certify(direct, table, server)


def test_the_comparison_of_the_eras_says_what_differs(direct) -> None:
    run = direct("--mcp-cmd", variant("era_dependent_retry"), *HTTP_OPTIONS, cases=[SAME])
    message = run.case(SAME)["message"]
    assert "over MCP 2026-07-28 and MCP 2025-06-18" in message
    assert "step 3 (a retry of the first report" in message and '/status "blocked" / "active"' in message
    frames = run.case(SAME)["transcript"]
    assert {f.get("conn") for f in frames} >= {None, "2025-06-18"}, "the other era's frames are labelled"


def _eras_run(
    tmp_path: Path, *args: str, timeout: float = 300
) -> tuple[subprocess.CompletedProcess[str], Path]:
    base = tmp_path / "both"
    process = subprocess.run(
        [*shlex.split(python_command(str(ROOT / "runner.py"))), "--report-dir", str(base), "-q", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
    return process, base


def _report(base: Path, wire: str) -> Run:
    path = base / wire / "report.json"
    return Run(0, "", "", json.loads(path.read_text()), path.parent)


def test_both_names_the_cases_the_eras_answer_differently(tmp_path: Path) -> None:
    """A server whose bug only one era shows: that era is non-conformant (exit 1), and the last
    line names the case whose outcome differs."""
    server = variant("connection_cursor")
    process, _ = _eras_run(
        tmp_path,
        "--mcp-cmd",
        server,
        *HTTP_OPTIONS,
        "--mcp-protocol",
        "both",
        "-k",
        "heartbeat.instructions.paging",
    )
    last = process.stderr.strip().splitlines()[-1]
    assert process.returncode == 1, process.stderr[-3000:]
    assert "MCP 2025-06-18: conformant; MCP 2026-07-28: NON-CONFORMANT" in last
    assert "heartbeat.instructions.paging (pass / fail)" in last


def test_both_is_the_command_lines(suite) -> None:
    """A single run (pytest, the plugin) certifies one era: both is a usage error there."""
    from conformance.direct import option_values
    from conformance.targets import configure

    values = option_values(["--target", "mcp", "--mcp-protocol", "both"])
    with pytest.raises(UsageError, match="--mcp-protocol both certifies each era in a run of its own"):
        configure(values, Path("/tmp/unused-sandbox"))
    run = suite("--target", "acp", "--mcp-protocol", "both")
    assert run.code == 2 and "certifies an MCP server" in run.stderr


def _requests(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.parametrize("wire", WIRE_REVISIONS)
def test_what_each_era_puts_on_the_http_wire(wire: str, direct, tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    server = python_command(str(ROOT / "tests" / "servers" / "mcp_request_log.py"), "--http", "127.0.0.1:0")
    cases = [
        "heartbeat.tools.listed",
        "heartbeat.args.valid-call-succeeds",
        "heartbeat.access.other-caller-rejected",
    ]
    run = direct(
        "--mcp-cmd",
        server,
        *HTTP_OPTIONS,
        "--env",
        f"MCP_REQUEST_LOG={log}",
        "--mcp-protocol",
        wire,
        cases=cases,
    )
    assert set(run.outcomes.values()) == {"pass"}, run.outcomes
    requests = _requests(log)
    probes = [r for r in requests if r["id"] == "conformance-reachability"]
    assert probes and all(r["http"] == "POST" and r["rpc"] == "server/discover" for r in probes), (
        "reachability: a POST"
    )
    mcp = [r for r in requests if r["path"] == "/mcp" and r not in probes]
    if wire == "2026-07-28":
        assert {r["http"] for r in mcp} == {"POST"}, "no GET stream, no DELETE"
        assert not any("mcp-session-id" in r["headers"] for r in mcp), "no protocol session"
        assert not any(r["rpc"] in ("initialize", "notifications/initialized") for r in mcp)
        for r in mcp:
            assert r["headers"]["mcp-protocol-version"] == "2026-07-28" == r["envelope"], r
            assert r["headers"]["mcp-method"] == r["rpc"], r
            if r["rpc"] == "tools/call":
                assert r["headers"]["mcp-name"] == r["name"] == "session_heartbeat", r
        assert sum(r["rpc"] == "server/discover" for r in mcp) == 2, "caller A's and caller B's"
    else:
        opened = [r for r in mcp if r["rpc"] == "initialize"]
        assert len(opened) == 2, "caller A's and caller B's"
        after = [r for r in mcp if r["rpc"] not in ("initialize",)]
        assert all(r["headers"].get("mcp-protocol-version") == "2025-06-18" for r in after), after
        assert all("mcp-session-id" in r["headers"] for r in after if r["http"] == "POST")
        assert not any(r["envelope"] for r in mcp), "no stateless envelope in the handshake era"


def test_a_server_that_never_answers_is_reported_with_a_reason(suite) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        silent = suite("--mcp-url", f"http://127.0.0.1:{port}/mcp", "--timeout", "1")
    assert silent.code == 2
    assert (
        silent.stderr.strip()
        .splitlines()[-1]
        .endswith(f"cannot reach http://127.0.0.1:{port}/mcp: no answer in 1 s")
    )
    closed = suite("--mcp-url", f"http://127.0.0.1:{port}/mcp", "--timeout", "1")
    reason = (
        closed.stderr.strip().splitlines()[-1].partition(f"cannot reach http://127.0.0.1:{port}/mcp: ")[2]
    )
    assert closed.code == 2 and reason.strip(), closed.stderr[-500:]


# The README's commands for the eras, run as written in the stand-ins' folder (tests/readme.py).
README_BOTH = readme.command('session-status-conformance --target mcp --mcp-protocol both')  # fmt: skip
README_MODERN_STDIO = readme.command('session-status-conformance --mcp-cmd "node dist/server.js --modern-only" --instruct-cmd "node dist/ops.js instruct {sessionId} {text}"')  # noqa: E501  # fmt: skip
README_MODERN_HTTP = readme.command('session-status-conformance --transport http --mcp-cmd "node dist/server.js --http 127.0.0.1:0 --modern-only"')  # noqa: E501  # fmt: skip
README_STATELESS = readme.command('session-status-conformance --transport http --mcp-cmd "node dist/server.js --http 127.0.0.1:0 --stateless-http" --mcp-protocol 2025-06-18')  # noqa: E501  # fmt: skip
# Without --instruct-url, --header and --other-header: the cases that enqueue an operator's
# instruction, and the access cases (caller B's, and caller A's second connection).
NEEDS_HOOKS = {
    c: "not-testable"
    for c in HTTP_BASELINE
    if c.startswith(("heartbeat.access.", "heartbeat.instructions."))
    or "require_instruct" in inspect.getsource(CASES[c].func)
}


@pytest.fixture
def standins(tmp_path: Path) -> readme.StandIns:
    return readme.StandIns(tmp_path / "work", Path(sys.executable).parent)


def _one_report(standins: readme.StandIns, process: subprocess.CompletedProcess[str]) -> Run:
    (path,) = standins.folder.glob("reports/*/report.json")
    return Run(process.returncode, process.stdout, process.stderr, json.loads(path.read_text()), path.parent)


@pytest.mark.slow
def test_the_readmes_both_eras_command_writes_two_reports_and_a_matrix(standins: readme.StandIns) -> None:
    process = standins.run(README_BOTH)
    assert process.returncode == 0, process.stderr[-3000:]
    (matrix,) = standins.folder.glob("reports/*/matrix.md")
    assert sorted(p.name for p in matrix.parent.iterdir()) == [
        "2025-06-18",
        "2026-07-28",
        "matrix.html",
        "matrix.md",
    ]
    last = process.stderr.strip().splitlines()[-1]
    assert last.startswith("MCP 2025-06-18: conformant; MCP 2026-07-28: conformant;"), last
    assert "every case that applies to both eras has the same outcome in both" in last
    assert f"{matrix.parent.name}/matrix.html" in last
    for wire in WIRE_REVISIONS:
        report = _report(matrix.parent, wire).report
        assert report is not None and report["wire"]["revision"] == wire
        assert report["verdict"]["label"] == "conformant"
    assert set(_report(matrix.parent, "2025-06-18").outcomes) == set(
        _report(matrix.parent, "2026-07-28").outcomes
    )
    markdown = matrix.read_text()
    assert "| wire revision | | MCP 2025-06-18 (handshake (2025), initialize)" in markdown
    assert "MCP 2026-07-28 (stateless (2026), server/discover)" in markdown
    assert "2025-06-18/report.html#heartbeat.args.wrong-types" in (matrix.parent / "matrix.html").read_text()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "expected", "wire"),
    [
        (README_MODERN_STDIO, STDIO_BASELINE | ONE_ERA, "2026-07-28"),
        (README_MODERN_HTTP, HTTP_BASELINE | ONE_ERA | NEEDS_HOOKS | NO_LATE_STREAM, "2026-07-28"),
        (README_STATELESS, HTTP_BASELINE | HANDSHAKE_ERA | NEEDS_HOOKS | NO_LATE_STREAM, "2025-06-18"),
    ],
    ids=["modern-only-stdio", "modern-only-http", "stateless-http"],
)
def test_the_readmes_era_commands_certify(text: str, expected: dict[str, str], wire: str, standins) -> None:
    run = _one_report(standins, standins.run(text))
    assert run.code == 0 and run.stderr.strip().splitlines()[-1].startswith("CONFORMANT"), run.stderr[-3000:]
    assert run.outcomes == expected, run.diff(expected)
    assert run.report is not None
    assert run.report["wire"]["revision"] == wire


@pytest.mark.parametrize(
    ("server", "opens"), [("result_not_tool_result", "initialize"), (None, "server/discover")]
)
def test_restarts_open_in_the_runs_era(server: str | None, opens: str, tmp_path: Path) -> None:
    """auto chooses once: a restarted server is opened in the era the run speaks, without probing
    again (on stdio a process's first request fixes its era)."""
    from conformance.core.config import AgentConfig
    from conformance.core.transcript import SEND
    from conformance.runtime import Runtime
    from conformance.targets.mcp.options import McpOptions
    from conformance.targets.mcp.target import McpTarget

    script = [str(MCP_AGENTS / f"{server}.py")] if server else ["-m", "conformance.reference.mcp.server"]
    config = AgentConfig(
        command=[sys.executable, *script], cwd=str(tmp_path), target="mcp", target_options=McpOptions()
    )
    runtime = Runtime(config)
    try:
        runtime.start()
        assert isinstance(runtime.target, McpTarget)
        chosen = runtime.target.era
        assert chosen is not None
        mark = runtime.transcript.mark()
        runtime.call(runtime.restart_agent)
        sent = [json.loads(e.frame)["method"] for e in runtime.transcript.since(mark) if e.direction == SEND]
        assert sent[0] == opens and "server/discover" not in sent[1:], sent
        assert isinstance(runtime.target, McpTarget) and runtime.target.era is not None
        assert runtime.target.era.version == chosen.version and runtime.target.era.chosen == chosen.chosen
    finally:
        runtime.close()

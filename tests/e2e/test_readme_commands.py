"""Every command the README shows, run as written against the reference implementations.

The programs the examples name are stand-ins around the references (tests/readme.py), the venv's
programs are on PATH as the README says after activating it, and the only words replaced are the
addresses and ids of servers the examples assume are already running (`SUBSTITUTE`). Each
command must end as the README promises: its exit code, and the verdict or output it describes.

The runs use the smoke budget through pytest's own PYTEST_ADDOPTS (the command line stays as
written; a conforming reference's verdict does not depend on the budget), so the README's two
dozen commands fit in CI. Where a command certifies a reference in full, the test also asserts
every case's outcome (the reference tests it replaced).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from conformance.targets import TARGETS
from tests import readme
from tests.conftest import AGENTS, ROOT, Run, direct_run, listening, python_command
from tests.targets.acp.test_broken_agents import BASELINE as ACP_BASELINE
from tests.targets.acp.test_broken_agents import POLICY_CASES, V2_BASELINE, WS_BASELINE
from tests.targets.acp.test_websocket import HTTP_BASELINE as ACP_HTTP_BASELINE
from tests.targets.http.test_http import BASELINE as HTTP_BASELINE
from tests.targets.mcp.test_mcp import HTTP_BASELINE as MCP_HTTP_BASELINE
from tests.targets.mcp.test_mcp import STDIO_BASELINE as MCP_STDIO_BASELINE

VENV_BIN = Path(sys.executable).parent
REPORT_SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
ACP_STDIO = ("-m", "conformance.reference.acp.agent")


def no_attach_over_websocket(run: Run, folder: Path) -> None:
    no_attach = run.case("status.connections.no-attach")["details"]
    assert (no_attach["updates_to_a"], no_attach["updates_to_b"]) == (1, 0)


def streamable_http_is_reported(run: Run, folder: Path) -> None:
    assert run.report is not None
    assert run.report["system"]["transport"] == "http"
    assert run.case("status.cheap.latency")["details"]["absolute_rule"] is False


def agent_url_cannot_restart(run: Run, folder: Path) -> None:
    assert run.report is not None
    assert "needs to restart the agent" in run.case("status.inactive.after-restart")["message"]
    assert run.report["system"]["command"][0].startswith("ws://127.0.0.1:")


def v2_holds_and_answers_a_permission(run: Run, folder: Path) -> None:
    held = run.case("status.state.requires-action")
    assert held["details"]["snapshot"]["state"] == {"state": "requires_action"}
    assert "session/request_permission" in " ".join(f["frame"] for f in held["transcript"])


def mcp_stdio_says_what_to_pass(run: Run, folder: Path) -> None:
    assert run.report is not None
    assert run.report["spec"]["revision"] == "mcp-session-heartbeat-2025-06-18"
    assert run.report["system"]["name"] == "session-heartbeat-reference" and "agent" not in run.report
    assert "--other-header" in run.case("heartbeat.access.other-caller-rejected")["message"]
    coverage = run.report["traceability"]
    assert coverage["revision"] == "mcp-session-heartbeat-2025-06-18" and coverage["tested"] >= 10


def mcp_callers_are_told_apart_and_redacted(run: Run, folder: Path) -> None:
    assert run.report is not None
    rejected = run.case("heartbeat.access.other-caller-rejected")
    assert any(f.get("conn") == "B" for f in rejected["transcript"]), "caller B's frames are labelled"
    assert "Bearer caller-a" not in json.dumps(run.report), "credentials are redacted"


def http_reference_is_fully_traced(run: Run, folder: Path) -> None:
    assert run.report is not None
    assert run.report["spec"]["revision"] == "agentscope-2.0.4"
    assert run.report["traceability"]["tested"] == run.report["traceability"]["total"]
    shape = run.case("http.status.shape")
    assert any(f["frame"].startswith("curl ") for f in shape["transcript"] if f["dir"] == "send")


def http_plain_service_says_how_to_drive(run: Run, folder: Path) -> None:
    assert "POST /chat/" in run.case("http.state.idle-fresh")["message"]


def agent_got_cwd_and_env(run: Run, folder: Path) -> None:
    started = (folder / "home" / "my-agent.log").read_text().splitlines()
    assert started and set(started) == {f"LOG_LEVEL=debug cwd={folder / 'home' / 'project'}"}


def prompts_capped_at_40(run: Run, folder: Path) -> None:
    assert run.report is not None
    assert run.report["prompts"]["limit"] == 40 and run.report["prompts"]["sent"] <= 40
    assert run.report["options"]["turnTimeout"] == 600


def no_prompt_sent(run: Run, folder: Path) -> None:
    assert run.report is not None
    prompts = run.report["prompts"]
    assert prompts["sent"] == 0 and prompts["notSent"], prompts
    assert all(run.case(c)["outcome"] == "not-testable" for c in prompts["notSent"])


def baseline_written(run: Run, folder: Path) -> None:
    assert "[[expected-failures]]" not in (folder / "conformance-baseline.toml").read_text()


def events_streamed(run: Run, folder: Path) -> None:
    events = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[:2] == ["RunStarted", "TargetDescribed"] and kinds[-1] == "RunFinished"
    finished = [e["id"] for e in events if e["event"] == "CaseFinished"]
    started = [e["id"] for e in events if e["event"] == "CaseStarted"]
    # in the order they ran (report.json lists them by id)
    assert run.report is not None
    assert finished == started and sorted(finished) == sorted(c["id"] for c in run.report["cases"]) != []
    assert events[-1]["exitCode"] == 0 and events[-1]["verdict"] == "conformant"


@dataclass(frozen=True)
class Promise:
    """What the README says a command does, and what the tests it replaced asserted."""

    code: int
    says: str  # the start of the last line on stderr (the run's one-line verdict)
    outcomes: dict[str, str] | None = None  # exactly these outcomes (None: the verdict is the promise)
    check: Callable[[Run, Path], None] | None = None  # given the run and the folder it ran in
    server: str | None = None  # a server the command expects to be running
    substitute: tuple[tuple[str, str], ...] = ()  # README words -> this server's (…{url}…)
    # Run as a process: what it promises is the program's own (selection, files it writes).
    # Otherwise the command's words, as the shell gives them, run in this process (see below).
    process: bool = False


HTTP_PLAIN_DRIVEN = {
    c
    for c in HTTP_BASELINE
    if c.startswith(
        (
            "http.state.",
            "http.ownership.while-",
            "http.later.",
            "http.twins.",
            "http.neighbour.",
            "http.failure.",
        )
    )
    or c in ("http.safe.parked-stays-parked", "http.concurrency.races", "http.protocol.conditional")
}
CONFORMANT = Promise(0, "CONFORMANT")
PARTIAL = Promise(0, "PARTIAL", process=True)
PROMISES: dict[str, Promise] = {
    'session-status-conformance --agent "node dist/my-agent.js"': CONFORMANT,
    'session-status-conformance --agent "my-agent --acp" --cwd ~/project --env LOG_LEVEL=debug': Promise(
        0, "CONFORMANT", check=agent_got_cwd_and_env
    ),
    'session-status-conformance --agent "npx @zed-industries/codex-acp" --env OPENAI_API_KEY=dummy '
    "--auth-method openai-api-key": CONFORMANT,
    'session-status-conformance --protocol 2 --agent "my-agent --acp-v2"': CONFORMANT,
    'session-status-conformance --agent "my-agent --acp" --turn-timeout 600 --max-prompts 40': Promise(
        0, "CONFORMANT", check=prompts_capped_at_40
    ),
    'session-status-conformance --agent "my-agent --acp" --max-prompts 0        # what needs no model': Promise(
        0, "CONFORMANT", check=no_prompt_sent
    ),
    "session-status-conformance --protocol 2                                 # the v2 reference agent": Promise(
        0, "CONFORMANT", V2_BASELINE, v2_holds_and_answers_a_permission
    ),
    'session-status-conformance --transport websocket --agent "my-agent --listen 127.0.0.1:0"   '
    "# prints its ws:// URL": CONFORMANT,
    'session-status-conformance --transport http --agent "my-agent --http 127.0.0.1:0"          '
    "# prints its http:// URL": Promise(0, "CONFORMANT", ACP_HTTP_BASELINE, streamable_http_is_reported),
    'session-status-conformance --agent "my-agent --memory-cap 8 --idle-evict-after 2" --memory-cap 8 '
    "--idle-evict-after 2": Promise(0, "CONFORMANT", ACP_BASELINE | dict.fromkeys(POLICY_CASES, "pass")),
    "session-status-conformance --agent-url ws://127.0.0.1:8765/                                 "
    "# already running": Promise(
        0,
        "CONFORMANT",
        WS_BASELINE
        | {
            "status.inactive.after-restart": "not-testable",
            "status.no-side-effects.twins-restart": "not-testable",
        },
        agent_url_cannot_restart,
        server="acp-ws",
        substitute=(("ws://127.0.0.1:8765/", "{url}"),),
    ),
    "session-status-conformance --agent-url http://127.0.0.1:8080/acp                            "
    "# already running": Promise(
        0, "CONFORMANT", server="acp-http", substitute=(("http://127.0.0.1:8080/acp", "{url}"),)
    ),
    "session-status-conformance --transport websocket                                            "
    "# the reference agent": Promise(0, "CONFORMANT", WS_BASELINE, no_attach_over_websocket),
    "session-status-conformance --target mcp": Promise(
        0, "CONFORMANT", MCP_STDIO_BASELINE, mcp_stdio_says_what_to_pass
    ),
    "session-status-conformance --target mcp --transport http": CONFORMANT,
    'session-status-conformance --mcp-cmd "node dist/server.js" --instruct-cmd '
    '"node dist/ops.js instruct {sessionId} {text}"': Promise(0, "CONFORMANT", MCP_STDIO_BASELINE),
    'session-status-conformance --mcp-url https://agents.example/mcp     --header "Authorization=Bearer '
    '$TOKEN_A" --other-header "Authorization=Bearer $TOKEN_B"     --instruct-url '
    "https://agents.example/ops/instructions": Promise(
        0,
        "CONFORMANT",
        MCP_HTTP_BASELINE,
        mcp_callers_are_told_apart_and_redacted,
        server="mcp-http",
        substitute=(
            ("https://agents.example/mcp", "{url}"),
            ("https://agents.example/ops/instructions", "{base}/operator/instructions"),
        ),
    ),
    "session-status-conformance --target http --http-long-run 12                # the embedded reference service"
    " (its run lease lives 10 s)": (Promise(0, "CONFORMANT", HTTP_BASELINE, http_reference_is_fully_traced)),
    "session-status-conformance --http-url http://127.0.0.1:8000 --user-id alice  # an AgentScope server": Promise(
        0, "CONFORMANT", server="http", substitute=(("http://127.0.0.1:8000", "{url}"),)
    ),
    "session-status-conformance --http-url https://api.example --user-id alice --agent-id a1 --session-id s1  "
    "# any other service": Promise(
        0,
        "CONFORMANT",
        # The plain server (http.server) answers HEAD and OPTIONS 501 and sends no validator.
        HTTP_BASELINE
        | dict.fromkeys(HTTP_PLAIN_DRIVEN, "not-testable")
        | {"http.protocol.header-fields": "n/a"},
        http_plain_service_says_how_to_drive,
        server="http-plain",
        substitute=(("https://api.example", "{url}"),),
    ),
    'session-status-conformance --agent "my-agent" -k unknown                  # the unknown-session cases': (
        PARTIAL
    ),
    'session-status-conformance --agent "my-agent" -k "no-side-effects"        # the side-effect contract': (
        PARTIAL
    ),
    'session-status-conformance --agent "my-agent" -m must                     # MUST cases only (-m MUST too)': (
        PARTIAL
    ),
    'session-status-conformance --agent "my-agent" -k unknown --events events.jsonl': Promise(
        0, "PARTIAL", check=events_streamed, process=True
    ),
    'session-status-conformance --agent "my-agent" --expected-failures conformance-baseline.toml '
    "--update-expected-failures": Promise(0, "CONFORMANT", check=baseline_written, process=True),
}
PYTEST_EXAMPLE = readme.command(
    'pytest cases --agent "my-agent" -k status.error.unknown-session-code -v   # the plugin, directly'
)
QUICK_START = readme.command(
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/session-status-conformance"
)
MATRIX = readme.command(
    "session-status-conformance matrix reports/*/report.json -o matrix.html --markdown matrix.md"
)
REPLAY_SAME = readme.command(
    "session-status-conformance replay reports/<run>/replays/sequence.status.model-based.replay.json"
    "            # same agent"
)
REPLAY_OTHER = readme.command(
    "session-status-conformance replay reports/<run>/replays/sequence.status.model-based.replay.json --agent CMD"
    " # another"
)
readme.claim(readme.RUNNER, *PROMISES, PYTEST_EXAMPLE, QUICK_START, MATRIX, REPLAY_SAME, REPLAY_OTHER)


@pytest.fixture
def standins(tmp_path: Path) -> readme.StandIns:
    return readme.StandIns(tmp_path / "work", VENV_BIN)


def last_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    return lines[-1] if lines else ""


def server(name: str, stack: ExitStack) -> dict[str, str]:
    """A reference server the README's "already running" examples stand for: its words."""
    argv = {
        "acp-ws": (*ACP_STDIO, "--listen", "127.0.0.1:0"),
        "acp-http": (*ACP_STDIO, "--listen-http", "127.0.0.1:0"),
        "mcp-http": ("-m", "conformance.reference.mcp.server", "--http", "127.0.0.1:0"),
        "http": ("-m", "conformance.reference.http.service", "--listen", "127.0.0.1:0"),
        # A service without AgentScope's API: session s1 of agent a1, owned by alice.
        "http-plain": (str(ROOT / "tests" / "servers" / "plain_status_service.py"),),
    }[name]
    url = stack.enter_context(listening(shlex.split(python_command(*argv))))
    return {"url": url, "base": url.removesuffix("/mcp")}


def words(standins: readme.StandIns, text: str) -> list[str]:
    """The command's arguments as the shell splits and expands them (quotes, ~, $TOKEN_A)."""
    assert text.startswith("session-status-conformance ")
    printed = subprocess.run(
        [
            "/bin/sh",
            "-c",
            "argv() { printf '%s\\0' \"$@\"; }; argv" + text.removeprefix("session-status-conformance"),
        ],
        cwd=standins.folder,
        env=standins.env,
        capture_output=True,
        text=True,
        check=True,
    )
    return printed.stdout.split("\0")[:-1]


def start_references_forked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded references of this process's runs start through the fork server, as the
    stand-ins do: the same module and arguments, without a second of SDK imports per start (a
    run starts its agent three or four times). The quick start and the install test start them
    as a user's run does."""
    for target in TARGETS:
        plain = target.reference_command

        def forked(transport: str, values: dict, plain=plain) -> list[str]:
            command = plain(transport, values)
            assert command[:2] == [sys.executable, "-m"], command
            return shlex.split(python_command(*command[1:]))

        monkeypatch.setattr(target, "reference_command", staticmethod(forked))


@pytest.mark.slow
@pytest.mark.parametrize("text", sorted(PROMISES), ids=readme.name_of)
def test_the_readme_command_keeps_its_promise(
    text: str, standins: readme.StandIns, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command whose promise is a verdict runs in this process (conformance.direct: the same
    option table, target, harness, outcomes and verdict as the program, without a pytest start
    per command), on the words the shell gives, in the stand-ins' folder and environment, with
    the smoke budget, its embedded reference started through the fork server. The others run as
    the program, as written."""
    promise = PROMISES[text]
    with ExitStack() as stack:
        written = text
        if promise.server:
            found = server(promise.server, stack)
            for old, new in promise.substitute:
                assert written.count(old) == 1, old
                written = written.replace(old, new.format(**found))
        if promise.process:
            process = standins.run(written)
            (path,) = standins.folder.glob("reports/*/report.json")
            run = Run(
                process.returncode, process.stdout, process.stderr, json.loads(path.read_text()), path.parent
            )
        else:
            monkeypatch.chdir(standins.folder)
            start_references_forked(monkeypatch)
            for name, value in standins.env.items():
                monkeypatch.setenv(name, value)
            run = direct_run(*words(standins, written), "--profile", "smoke")  # its stderr: the verdict line
    if run.code != promise.code and promise.outcomes is not None and run.report is not None:
        pytest.fail(f"{readme.name_of(text)}: {written}\n{run.diff(promise.outcomes)}", pytrace=False)
    assert run.code == promise.code and last_line(run.stderr).startswith(promise.says), (
        f"{readme.name_of(text)}: {written}\nexit {run.code}\n{run.stderr[-3000:]}"
    )
    if promise.outcomes is not None:
        assert run.outcomes == promise.outcomes, run.diff(promise.outcomes)
    if promise.check is not None:
        promise.check(run, standins.folder)


@pytest.mark.slow
def test_the_plugin_example_runs_from_the_checkouts_cases(standins: readme.StandIns) -> None:
    (standins.folder / "cases").symlink_to(ROOT / "cases")
    run = standins.run(PYTEST_EXAMPLE)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "status.error.unknown-session-code" in run.stdout and " passed" in run.stdout


@pytest.mark.slow
def test_the_matrix_example_compares_the_runs_in_reports(standins: readme.StandIns) -> None:
    runs = (
        readme.command(
            'session-status-conformance --agent "my-agent" -k unknown                  # the unknown-session cases'
        ),
        "session-status-conformance --target mcp -k heartbeat.args",
    )
    for text in runs:
        assert standins.run(text).returncode == 0
    run = standins.run(MATRIX)
    assert run.returncode == 0, run.stderr[-2000:]
    html = (standins.folder / "matrix.html").read_text()
    markdown = (standins.folder / "matrix.md").read_text()
    assert "status.error.unknown-session-code" in html and "heartbeat.args.wrong-types" in markdown
    assert sorted(p.name for p in standins.folder.iterdir() if p.suffix in (".html", ".md")) == [
        "matrix.html",
        "matrix.md",
    ]


@pytest.mark.slow
def test_the_replay_examples_replay_a_sequence_failure(standins: readme.StandIns) -> None:
    """A broken agent's model-based failure, replayed on the same agent (still failing) and on
    another command (the reference: fixed)."""
    broken = python_command(str(AGENTS / "acp" / "status_forgets_closed.py"))
    found = standins.run(
        f"session-status-conformance --agent {shlex.quote(broken)} -k sequence.status.model-based"
    )
    assert found.returncode == 1, found.stderr[-2000:]
    (replay,) = standins.folder.glob("reports/*/replays/sequence.status.model-based.replay.json")
    run_folder = replay.parent.parent.name
    same = standins.run(REPLAY_SAME.replace("<run>", run_folder))
    assert same.returncode == 1 and "STILL FAILING" in same.stderr + same.stdout, same.stderr[-2000:]
    other = standins.run(REPLAY_OTHER.replace("<run>", run_folder).replace("CMD", "my-agent"))
    assert other.returncode == 0 and "FIXED" in other.stderr + other.stdout, other.stderr[-2000:]


@pytest.mark.slow
def test_the_quick_start_certifies_from_a_fresh_clone(tmp_path: Path) -> None:
    """The first quick-start command, in a copy of the checkout: the embedded reference agent,
    started as a user's run starts it, certified at the default budget (the ci profile), every
    case with its expected outcome, and every report file. Its dependencies come from this
    environment (PYTHONPATH, pip told not to fetch them): the machine has no internet beyond the
    registries, and downloading 100 MB is not what the test is about."""
    clone = tmp_path / "clone"

    def left_out(folder: str, names: list[str]) -> list[str]:
        top = Path(folder) == ROOT  # what a clone has not: the checkout's venv, runs, builds and built site
        return [
            n
            for n in names
            if (top and n in (".git", ".venv", "reports", "build", "dist", "site"))
            or n == "__pycache__"
            or n.endswith(".egg-info")
        ]

    shutil.copytree(ROOT, clone, ignore=left_out)
    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(VENV_BIN), os.environ["PATH"]]),
        "PYTHONPATH": sysconfig.get_paths()["purelib"],
        "PIP_NO_DEPS": "1",
        "PIP_NO_BUILD_ISOLATION": "0",  # pip's inverted spelling: no isolated build environment
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_INDEX": "1",
    }
    process = subprocess.run(
        ["/bin/sh", "-c", QUICK_START], cwd=clone, env=env, capture_output=True, text=True, timeout=600
    )
    assert process.returncode == 0, process.stdout[-2000:] + process.stderr[-3000:]
    assert last_line(process.stderr).startswith("CONFORMANT: "), process.stderr[-2000:]
    (path,) = clone.glob("reports/reference-*/report.json")  # the folder the README names
    run = Run(process.returncode, process.stdout, process.stderr, json.loads(path.read_text()), path.parent)
    assert run.report is not None
    for name in ("report.json", "junit.xml", "report.html", "summary.md", "badge.svg"):
        assert (path.parent / name).is_file(), name
    assert "CONFORMANT" in (path.parent / "report.html").read_text()
    assert run.outcomes == ACP_BASELINE, run.diff(ACP_BASELINE)
    assert run.report["verdict"]["label"] == "conformant"
    assert run.report["options"]["profile"] == "ci", run.report["options"]
    Draft202012Validator(REPORT_SCHEMA).validate(run.report)
    assert run.report["acp"]["agentInfo"]["name"] == "acp-reference-agent"
    latency = run.case("status.cheap.latency")["details"]
    assert latency["calls"] == 200 and latency["p99_ms"] >= latency["p50_ms"] > 0

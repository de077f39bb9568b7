"""Certify an agent written with the TypeScript SDK @agentclientprotocol/sdk 2.4.0 (a real SDK in
another language): tests/agents/ts_sdk/agent.mjs, installed from its own package.json."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.conftest import AGENTS
from tests.targets.acp.test_broken_agents import BASELINE

pytestmark = pytest.mark.slow

AGENT_DIR = AGENTS / "ts_sdk"
# What the suite finds in an SDK 2.4.0 agent that does everything the SDK way. Both are the
# SDK's (Node's JSON.parse), not the agent's: ids past 2**53 come back rounded, and invalid
# UTF-8 is decoded with U+FFFD and answered as a request rather than as a parse error. Both are
# frames no ACP client sends: robustness findings, listed, never deciding the certificate.
FINDINGS = {"fuzz.frames.survives": "warn", "fuzz.frames.error-codes": "warn"}
# What the agent does not do: ask permission for a "[permission]" prompt (its turn ends at once: no
# turn stays in progress to ask about, for the session itself or beside a sibling, nor for a
# restart to cut short), or advertise session/delete.
NOT_DONE = {
    "status.active.during-turn": "n/a",
    "transport.notification.leaves-turn": "n/a",
    "status.neighbours.sibling-turn": "n/a",
    "status.consistency.after-delete": "unimplemented",
}


@pytest.fixture(scope="module")
def ts_agent() -> str:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are not on PATH: the TypeScript SDK agent cannot run here")
    installed = AGENT_DIR / "node_modules" / "@agentclientprotocol" / "sdk" / "package.json"
    lock = AGENT_DIR / "package-lock.json"
    marker = AGENT_DIR / "node_modules" / ".package-lock.json"  # npm's copy of what it installed
    if not installed.is_file() or not marker.is_file() or marker.stat().st_mtime < lock.stat().st_mtime:
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=AGENT_DIR,
            check=True,
            timeout=300,
        )
    return f"{node} {AGENT_DIR / 'agent.mjs'}"


def test_ts_sdk_agent_is_certified_against_the_sdk_revision(ts_agent: str, direct) -> None:
    # Every case; the smoke budget for the generated ones (each input kind is tried first, whatever
    # the budget: the SDK's findings below come from those).
    run = direct("--agent", ts_agent, "--profile", "smoke")
    assert run.report is not None, run.stderr
    assert run.report["acp"]["agentInfo"]["name"] == "ts-sdk-status-agent"
    assert run.report["spec"]["revision"] == "acp-unstable-2026-11"
    assert "'open'" in run.report["spec"]["why"]
    expected = BASELINE | FINDINGS | NOT_DONE
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == 0, run.stderr
    assert run.report["verdict"]["label"] == "conformant"
    assert "2 robustness finding(s)" in run.report["verdict"]["explanation"]
    survives = run.case("fuzz.frames.survives")["message"]
    assert "9007199254740993" in survives and "9007199254740992" in survives
    assert "IEEE-754 double" in survives and "@agentclientprotocol/sdk" in survives
    assert "decoded the invalid UTF-8 leniently" in run.case("fuzz.frames.error-codes")["message"]


def test_ts_sdk_agent_status_words_in_the_transcript(ts_agent: str, direct) -> None:
    words = ("unknown-session", "inactive.after-close", "active.after-new")
    chosen = [c for c in BASELINE if any(w in c for w in words)]
    run = direct("--agent", ts_agent, cases=chosen)
    assert run.code == 0, run.stderr
    frames = " ".join(f["frame"] for c in run.report["cases"] for f in c["transcript"])
    assert '"status":"open"' in frames and '"status":"saved"' in frames
    assert '"code":-32002,"message":"Resource not found","data":{"sessionId":' in frames

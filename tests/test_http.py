"""The HTTP target: the reference service is certified, and every `http.*` case is shown to fail
by a broken variant in tests/agents/http built for it (with the consequences its bug has on the
cases after it, listed here so nothing else may differ)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

import cases
from conformance.registry import CASES

from .conftest import AGENTS, ROOT, listening

cases.load_all()

HTTP_AGENTS = AGENTS / "http"
HTTP_CASES = sorted(c for c in CASES if CASES[c].target == "http")
BASELINE = dict.fromkeys(HTTP_CASES, "pass")
# States are reached in well under a second here; a short --timeout keeps waiting for a state a
# broken service never reaches brief.
FAST = ("--timeout", "5")
HIDDEN_EVERYWHERE = {"http.ownership.while-running": "fail", "http.ownership.while-parked": "fail"}

# variant file in tests/agents/http -> (exit code, outcomes that differ from BASELINE)
BROKEN: dict[str, tuple[int, dict[str, str]]] = {
    "forbidden_other_user": (
        1,
        {"http.ownership.other-user-404": "fail", "http.ownership.same-body": "fail"} | HIDDEN_EVERYWHERE,
    ),
    "telling_404_body": (1, {"http.ownership.same-body": "fail"} | HIDDEN_EVERYWHERE),
    "ignores_agent_id": (1, {"http.ownership.wrong-agent-404": "fail"} | HIDDEN_EVERYWHERE),
    # An empty 200 for a session nobody created: the unknown-session body others are compared with
    # is wrong too.
    "empty_200_unknown": (
        1,
        {
            "http.unknown.not-found": "fail",
            "http.safe.no-side-effects": "fail",
            "http.ownership.same-body": "fail",
        }
        | HIDDEN_EVERYWHERE,
    ),
    "status_creates_session": (1, {"http.unknown.not-found": "fail", "http.safe.no-side-effects": "fail"}),
    # The lease outlives the run, so no session that ran is ever anything but running again.
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
            "http.status.known-value": "warn",
            "http.state.awaiting-permission": "fail",
            "http.ownership.while-parked": "fail",
        },
    ),
    "wrong_session_echo": (1, {"http.status.shape": "fail"}),
    "new_session_not_idle": (1, {"http.state.idle-fresh": "fail"}),
    "missing_agent_400": (1, {"http.validation.missing-agent-id": "fail"}),
    "missing_user_bad_422": (1, {"http.validation.missing-user-id": "fail"}),
    # A probe holds the lease for 2 s: the probe after it reads running, and a run cannot start.
    "probe_takes_lease": (
        1,
        {
            "http.safe.no-lease": "fail",
            "http.safe.no-side-effects": "fail",
            "http.status.known-value": "fail",
        },
    ),
    "probe_touches_session": (1, {"http.safe.no-side-effects": "fail"}),
    "running_ignores_owner": (1, {"http.ownership.while-running": "fail"}),
    "parked_ignores_owner": (1, {"http.ownership.while-parked": "fail"}),
}
MESSAGES = {
    "running_ignores_owner": ("http.ownership.while-running", "another user got HTTP 200"),
    "telling_404_body": ("http.ownership.same-body", "tells whether the session exists"),
    "unknown_status_word": ("http.status.known-value", "'waiting'"),
}


@pytest.fixture
def plain_service() -> Iterator[str]:
    """The URL of tests/servers/plain_status_service.py (a service without AgentScope's API)."""
    with listening([sys.executable, str(ROOT / "tests" / "servers" / "plain_status_service.py")]) as url:
        yield url


def _variant(name: str) -> str:
    return f"{sys.executable} {HTTP_AGENTS / name}.py --listen 127.0.0.1:0"


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(BROKEN))
def test_broken_service_gets_exactly_its_outcomes(variant: str, suite) -> None:
    code, delta = BROKEN[variant]
    run = suite("--http-cmd", _variant(variant), *FAST)
    expected = BASELINE | delta
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == code, run.stderr[-2000:]
    assert run.report["target"] == "http"
    if variant in MESSAGES:
        case_id, text = MESSAGES[variant]
        assert text in run.case(case_id)["message"]
    run.assert_explained(delta)


def test_reference_service_is_certified(suite) -> None:
    run = suite("--target", "http")
    assert run.outcomes == BASELINE, run.diff(BASELINE)
    assert run.code == 0, run.stderr
    assert run.report["spec"]["revision"] == "agentscope-2.0.4"
    assert run.report["traceability"]["tested"] == run.report["traceability"]["total"]
    shape = run.case("http.status.shape")
    assert any(f["frame"].startswith("curl ") for f in shape["transcript"] if f["dir"] == "send")


def test_a_service_the_suite_cannot_drive_is_probed_on_the_given_session(suite, plain_service: str) -> None:
    """Without an AgentScope-compatible API: the read-only cases run on --session-id, the others say why."""
    run = suite("--http-url", plain_service, "--user-id", "alice", "--agent-id", "a1", "--session-id", "s1")
    driven = {c for c in HTTP_CASES if c.startswith("http.state.") or c.startswith("http.ownership.while-")}
    expected = BASELINE | dict.fromkeys(driven, "not-testable")
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == 0
    assert "POST /chat/" in run.case("http.state.idle-fresh")["message"]


def test_without_a_session_to_probe_the_cases_say_what_to_pass(suite, plain_service: str) -> None:
    run = suite("--http-url", plain_service, "--user-id", "alice")
    assert set(run.outcomes.values()) == {"not-testable"}
    assert "--session-id" in run.case("http.status.shape")["message"]


def test_usage_errors_are_one_line(suite) -> None:
    same = suite("--target", "http", "--user-id", "bob", "--other-user-id", "bob")
    assert same.code == 2 and "must differ" in same.stderr
    half = suite("--target", "http", "--session-id", "s1")
    assert half.code == 2 and "together" in half.stderr


def test_every_http_case_is_caught_by_a_broken_service() -> None:
    caught = {c for _, delta in BROKEN.values() for c, o in delta.items() if o in ("fail", "warn")}
    assert set(HTTP_CASES) - caught == set()


def test_every_http_variant_is_listed() -> None:
    files = {p.stem for p in HTTP_AGENTS.glob("*.py") if not p.name.startswith("_")}
    assert files == set(BROKEN)

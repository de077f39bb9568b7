"""The MCP twins' judgement on plain data, the policy options, and the reference store's machinery
(memory cap, idle expiry, allowance, length limits) on a clock the test moves (no server)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from conformance.core.config import UsageError
from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore
from conformance.targets.mcp.options import McpOptions
from conformance.targets.mcp.twins import cap_from_reads, same_divergence, ttl_bracket, ttl_schedule


def test_the_nudge_falls_before_any_twin_expires_and_late_enough_to_tell() -> None:
    schedule = ttl_schedule(2.0, 2.5, 0.1)
    assert schedule is not None
    nudge, read = schedule
    assert read == pytest.approx(2.6)
    assert 2.6 - 2.0 < nudge < 2.0  # a nudge taken for use keeps its twin past the read
    # Bounds too far apart (or twins created over too long): no time serves both.
    assert ttl_schedule(1.0, 2.5, 0.0) is None
    assert ttl_schedule(2.0, 2.5, 1.6) is None


def test_the_cap_is_the_run_of_kept_sessions_read_newest_first() -> None:
    assert cap_from_reads([True, True, True, False]) == 3
    assert cap_from_reads([False]) == 0
    assert cap_from_reads([True, True]) is None  # all kept: no cap within what was made


def test_the_time_to_live_is_bracketed_by_the_last_kept_and_the_first_gone() -> None:
    assert ttl_bracket([0.5, 1.0, 2.0], [True, True, False]) == (1.0, 2.0)
    assert ttl_bracket([0.5, 1.0], [False, True]) == (0.0, 0.5)
    assert ttl_bracket([0.5, 1.0], [True, True]) is None


def test_a_divergence_counts_only_when_every_round_shows_it_alike() -> None:
    assert same_divergence([(15, 19), (15, 19)])
    assert not same_divergence([(19, 19), (19, 19)])  # the twins agree
    assert not same_divergence([(15, 19), (19, 19)])  # one order only: the policy, not the calls
    assert not same_divergence([(15, 19), (19, 15)])
    assert same_divergence([("newer", "older"), ("newer", "older")])
    assert not same_divergence([])


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("session_ttl", 0.0, "--mcp-session-ttl"),
        ("session_ttl", 601.0, "--mcp-session-ttl"),
        ("session_cap", 0, "--mcp-session-cap"),
        ("session_cap", 5001, "--mcp-session-cap"),
        ("request_limit", 0, "--mcp-request-limit"),
        ("request_limit", 1, "--mcp-request-limit"),
    ],
)
def test_policies_out_of_range_are_usage_errors(option: str, value: float, message: str) -> None:
    plain = dict(headers=[], other_headers=[], instruct_cmd=None, instruct_url=None, instructions_path=None)
    policy: dict[str, Any] = {option: value}  # the one keyword under test, by its name
    with pytest.raises(UsageError, match=message):
        McpOptions.from_options(**plain, cursor_path=None, embedded=False, transport="stdio", **policy)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def beat(store: HeartbeatStore, sid: str, caller: str = "a", **fields: object) -> dict:
    return store.heartbeat(caller, {"sessionId": sid, "idempotencyKey": uuid.uuid4().hex[:6], **fields})


def test_the_cap_evicts_the_least_recently_used_and_only_applied_heartbeats_use() -> None:
    store = HeartbeatStore(session_cap=2, clock=Clock())
    beat(store, "x", currentStep="x")
    retry = {"sessionId": "x", "idempotencyKey": "kx", "currentStep": "x"}
    store.heartbeat("a", retry)
    beat(store, "y")
    store.heartbeat("a", retry)  # answered from its first result: not use
    with pytest.raises(HeartbeatError):
        store.heartbeat("a", {**retry, "idempotencyKey": "bad", "progressPercent": 101})  # rejected: not use
    with pytest.raises(HeartbeatError):
        store.heartbeat("b", {"sessionId": "x", "idempotencyKey": "kb"})  # another caller: not use
    beat(store, "z")
    assert list(store.sessions) == ["y", "z"]
    assert not [k for k in store.results if k[1] == "x"], "an evicted session's keys go with it"


def test_an_idle_session_is_forgotten_and_a_heartbeat_keeps_it() -> None:
    clock = Clock()
    store = HeartbeatStore(session_ttl=10.0, clock=clock)
    beat(store, "kept", currentStep="kept")
    beat(store, "idle", currentStep="idle")
    clock.now += 6
    beat(store, "kept")
    clock.now += 6
    assert beat(store, "kept")["currentStep"] == "kept"
    assert beat(store, "idle")["currentStep"] is None  # opened anew


def test_the_allowance_is_spent_by_applied_heartbeats_only() -> None:
    clock = Clock()
    store = HeartbeatStore(request_limit=3, request_window=60.0, clock=clock)
    first = {"sessionId": "s", "idempotencyKey": "k1"}
    store.heartbeat("a", first)
    store.heartbeat("a", first)  # a retry: free
    beat(store, "s")
    beat(store, "s")
    with pytest.raises(HeartbeatError, match="rate limited"):
        beat(store, "s")
    clock.now += 61
    beat(store, "s")  # a new window


def test_values_past_the_length_limit_are_refused_never_cut() -> None:
    store = HeartbeatStore(max_length=8)
    with pytest.raises(HeartbeatError, match="sessionId"):
        beat(store, "123456789")
    with pytest.raises(HeartbeatError, match="idempotencyKey"):
        store.heartbeat("a", {"sessionId": "s", "idempotencyKey": "k" * 9})
    with pytest.raises(HeartbeatError, match="longer than 8"):
        store.enqueue("s", "nine char")
    assert beat(store, "12345678")["sessionId"] == "12345678"

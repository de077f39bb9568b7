"""The slow reader's burst, judged on data: its size from the agent's own answers, each request's
limit from its measured pace, and the verdict on the answers that came."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.core.outcomes import NotTestable, Violation
from conformance.targets import slow_reader
from conformance.transport.peer import Reply

STATUS = "session/status"


def calls(count: int) -> list[tuple[str, Any]]:
    return [(STATUS, {"sessionId": f"s{n}"}) if n % 2 else ("tools/list", {}) for n in range(count)]


def answered(n: int) -> Reply:
    return Reply(n, STATUS, {"status": "active"})


def test_the_burst_is_sized_from_the_answers_and_bounded() -> None:
    assert slow_reader.burst_size(1024, 2048) == 512  # 512 KiB of answers
    assert slow_reader.burst_size(60, 2048) == 2048  # small answers: as many as allowed
    assert slow_reader.burst_size(64 * 1024, 2048) == slow_reader.FEWEST  # large ones: the fewest
    assert slow_reader.burst_size(0, 100) == 100


def test_each_limit_covers_the_hold_and_the_burst_at_the_agents_pace() -> None:
    fast = slow_reader.burst_timeout(0.001, 500, 1.0)
    slow = slow_reader.burst_timeout(0.03, 500, 1.0)
    assert fast >= slow_reader.HOLD + 5.0
    assert slow >= slow_reader.HOLD + 0.03 * 500  # a serial agent at its measured pace has room
    assert slow_reader.burst_timeout(0.001, 10, 30.0) >= 30.0  # the run's own clock, if longer


def test_every_answer_passes_and_is_described() -> None:
    details: dict[str, Any] = {}
    sent = calls(6)
    slow_reader.judge(sent, [answered(n) for n in range(6)], True, 9.0, details, named=STATUS)
    assert details["burst"]["requests"] == details["burst"]["answered"] == 6


@pytest.mark.parametrize("lost", [[0], [3], [1, 2, 5]])
def test_a_lost_answer_fails_and_names_how_many_of_the_named_method(lost: list[int]) -> None:
    sent = calls(6)
    replies: list[Reply | None] = [None if n in lost else answered(n) for n in range(6)]
    with pytest.raises(Violation) as caught:
        slow_reader.judge(sent, replies, True, 9.0, {}, named=STATUS)
    named = sum(1 for n in lost if sent[n][0] == STATUS)
    assert f"{len(lost)} of 6 requests" in str(caught.value)
    assert f"({named} of them {STATUS};" in str(caught.value)
    assert f"request #{lost[0] + 1} of the burst" in str(caught.value)


def test_a_tool_call_counts_by_its_tool_name() -> None:
    sent: list[tuple[str, Any]] = [("tools/call", {"name": "session_heartbeat"}), ("tools/list", {})]
    with pytest.raises(Violation, match=r"\(1 of them session_heartbeat;"):
        slow_reader.judge(sent, [None, None], True, 9.0, {}, named="session_heartbeat")


def test_reads_that_could_not_be_held_judge_nothing() -> None:
    with pytest.raises(NotTestable):
        slow_reader.judge(calls(2), [None, None], False, 9.0, {}, named=STATUS)

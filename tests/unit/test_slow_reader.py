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
    # A slow agent gets the burst it answers in BURST_SECONDS, never fewer than FEWEST.
    assert slow_reader.burst_size(60, 2048, latency=0.05) == int(slow_reader.BURST_SECONDS / 0.05)
    assert slow_reader.burst_size(60, 2048, latency=2.0) == slow_reader.FEWEST


def test_reads_are_held_while_the_agent_could_overflow_a_pipe_several_times() -> None:
    small, big = 256, 4096  # bytes an answer takes: OVERFLOW_BYTES is 1024 and 64 answers
    assert slow_reader.plan(small, 0.0001, 0.001, 2000, 1.0).hold == slow_reader.SHORTEST_HOLD
    assert slow_reader.plan(small, 0.002, 0.002, 2000, 1.0).hold == pytest.approx(1.2 * 1024 * 0.002)
    assert slow_reader.plan(big, 0.01, 0.01, 2000, 1.0).hold == pytest.approx(1.2 * 64 * 0.01)
    assert slow_reader.plan(small, 0.05, 0.05, 2000, 1.0).hold == slow_reader.LONGEST_HOLD
    assert (
        slow_reader.plan(small, 0.002, 0.002, 100, 1.0).hold == slow_reader.SHORTEST_HOLD
    )  # the burst is all


def test_answers_are_waited_for_while_they_keep_coming() -> None:
    fast, slow = slow_reader.plan(300, 0.001, 0.001, 500, 1.0), slow_reader.plan(300, 0.01, 0.4, 64, 1.0)
    assert fast.stall == 5.0 and slow.stall == pytest.approx(8.0)  # twenty slowest round trips
    assert slow_reader.plan(300, 0.001, 0.001, 10, 30.0).stall == 30.0  # the run's own clock, if longer
    assert slow.limit >= 4 * 64 * 0.4  # four times the burst at the slowest pace


CLOCK = slow_reader.Plan(hold=0.5, stall=5.0, limit=30.0)


def test_every_answer_passes_and_is_described() -> None:
    details: dict[str, Any] = {}
    sent = calls(6)
    slow_reader.judge(sent, [answered(n) for n in range(6)], True, CLOCK, details, named=STATUS)
    assert details["burst"]["requests"] == details["burst"]["answered"] == 6


@pytest.mark.parametrize("lost", [[0], [3], [1, 2, 5]])
def test_a_lost_answer_fails_and_names_how_many_of_the_named_method(lost: list[int]) -> None:
    sent = calls(6)
    replies: list[Reply | None] = [None if n in lost else answered(n) for n in range(6)]
    with pytest.raises(Violation) as caught:
        slow_reader.judge(sent, replies, True, CLOCK, {}, named=STATUS)
    named = sum(1 for n in lost if sent[n][0] == STATUS)
    assert f"{len(lost)} of 6 requests" in str(caught.value)
    assert f"answered {6 - len(lost)} and then nothing for 5 s" in str(caught.value)
    assert f"({named} of them {STATUS};" in str(caught.value)
    assert f"request #{lost[0] + 1} of the burst" in str(caught.value)


def test_a_tool_call_counts_by_its_tool_name() -> None:
    sent: list[tuple[str, Any]] = [("tools/call", {"name": "session_heartbeat"}), ("tools/list", {})]
    with pytest.raises(Violation, match=r"\(1 of them session_heartbeat;"):
        slow_reader.judge(sent, [None, None], True, CLOCK, {}, named="session_heartbeat")


def test_reads_that_could_not_be_held_judge_nothing() -> None:
    with pytest.raises(NotTestable):
        slow_reader.judge(calls(2), [None, None], False, CLOCK, {}, named=STATUS)


def test_a_burst_keeps_its_frames_short_and_the_transcript_its_limit_after() -> None:
    from conformance.core.transcript import Transcript

    log = Transcript(max_frame_chars=1000)
    with pytest.raises(RuntimeError), log.frames_cut_at(300):
        assert log.add("send", "x" * 500).truncated
        raise RuntimeError  # the limit comes back however the burst ends
    assert log.max_frame_chars == 1000
    assert not log.add("send", "x" * 500).truncated
    with log.frames_cut_at(2000):  # never longer than the transcript keeps
        assert log.add("send", "x" * 1500).truncated

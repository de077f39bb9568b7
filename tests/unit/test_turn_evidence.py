"""A turn the agent itself ended, cancelled or abandoned is evidence: what a status answer says
about the session's turn, and how a wait for the turn's end is cut short by it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import anyio

from conformance.core import revisions
from conformance.targets.acp.target import AcpTarget, says_no_turn
from conformance.transport.peer import Reply
from tests.conftest import revision_kept


def status(result: Any = None, error: dict[str, Any] | None = None) -> Reply:
    return Reply(1, "session/status", result, error)


def test_what_a_status_answer_says_of_the_turn() -> None:
    with revision_kept():
        revisions.use("rfd-2026-10-26")
        assert says_no_turn(status({"status": "active", "state": {"state": "idle"}}))
        assert says_no_turn(status({"status": "inactive"}))
        assert says_no_turn(status(error={"code": -32002, "message": "Session not found"}))
        assert not says_no_turn(status({"status": "active", "state": {"state": "running"}}))
        assert not says_no_turn(status({"status": "active", "state": {"state": "requires_action"}}))
        assert not says_no_turn(status({"status": "active"}))  # v1: nothing said of the turn
        assert not says_no_turn(status(error={"code": -32603, "message": "Internal error"}))
        assert not says_no_turn(status("not an object"))


class Harness(SimpleNamespace):
    """The parts of the harness a wait for a turn's end reads."""

    ran_out = 0

    def turn_ran_out(self) -> None:
        self.ran_out += 1


def target(turn_timeout: float, timeout: float) -> tuple[AcpTarget, Harness]:
    harness = Harness(config=SimpleNamespace(turn_timeout=turn_timeout, timeout=timeout))
    peer = SimpleNamespace(notifications=[], exited=None)
    return AcpTarget(cast(Any, harness), peer=cast(Any, peer)), harness


async def waits() -> dict[str, float]:
    found: dict[str, float] = {}
    acp, harness = target(turn_timeout=300, timeout=0.2)
    acp.prompted_at["s"] = anyio.current_time()
    await anyio.sleep(0.01)
    acp.no_turn_said["s"] = anyio.current_time()  # a status answer after the prompt said idle
    started = anyio.current_time()
    assert await acp.wait_state("s", "idle", since=0) is None
    found["after evidence"] = anyio.current_time() - started
    found["counted after evidence"] = harness.ran_out
    # Said before the prompt: nothing about this turn. The whole (short) turn clock is waited, and
    # counted as a turn that did not end.
    other, counted = target(turn_timeout=0.3, timeout=0.05)
    other.no_turn_said["t"] = anyio.current_time()
    await anyio.sleep(0.01)
    other.prompted_at["t"] = anyio.current_time()
    started = anyio.current_time()
    assert await other.wait_turn_end("t", since=0) is None
    found["turn clock"] = anyio.current_time() - started
    # Its turn outlived one turn clock: the next wait for it takes the request clock, uncounted.
    started = anyio.current_time()
    assert await other.wait_state("t", "idle", since=0) is None
    found["again"] = anyio.current_time() - started
    found["counted"] = counted.ran_out
    return found


def test_a_wait_for_the_turns_end_stops_soon_after_the_agent_said_it_is_over() -> None:
    found = anyio.run(waits)
    assert found["after evidence"] < 60, (
        found
    )  # the request clock after the evidence, not the 300 s turn clock
    assert found["counted after evidence"] == 0
    assert found["turn clock"] >= 0.3 and found["again"] < 0.3 and found["counted"] == 1, found

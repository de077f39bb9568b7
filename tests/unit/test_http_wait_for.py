"""HttpStatusTarget.wait_for on a scripted status: its deadline may pass while the first probe
still waits for an answer (the wait and the probe's HTTP timeout are both --timeout long)."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest

from conformance.core.outcomes import Unanswered
from conformance.targets.http.target import HttpStatusTarget, StatusProbe


def waiting_target(answers: list[float | str]) -> HttpStatusTarget:
    """A target whose status probes answer after the given delays (a state: answer it at once)."""
    target = HttpStatusTarget.__new__(HttpStatusTarget)
    script = iter(answers)

    async def status(session_id: str, agent_id: str | None, **_: Any) -> StatusProbe:
        step = next(script)
        if isinstance(step, float):
            await anyio.sleep(step)
            step = "running"
        return StatusProbe(httpx.Response(200, json={"status": step}))

    target.status = status  # the probe, scripted
    return target


def test_a_first_probe_unanswered_within_the_wait_is_unanswered() -> None:
    target = waiting_target([30.0])
    with pytest.raises(Unanswered) as raised:
        anyio.run(target.wait_for, "agent", "sess-1", "idle", 0.05)
    assert raised.value.method == target.status_method and raised.value.limit == 0.05


def test_the_wait_ends_with_its_last_probe_or_the_state_wanted() -> None:
    assert (
        anyio.run(waiting_target(["running", "idle"]).wait_for, "agent", "sess-1", "idle", 5.0).status
        == "idle"
    )
    late = anyio.run(waiting_target(["running", 30.0]).wait_for, "agent", "sess-1", "idle", 1.0)
    assert late.status == "running"

"""The HTTP target's unknown-session 404 calibration, judged on canned answers: a field that moves
slowly (a timestamp to the second) is noise even when the two calibration answers agree on it."""

from __future__ import annotations

import itertools

import anyio
import conformance.cases as cases
import httpx
from conformance.cases.http.status import Unknown404

from conformance.targets.http.target import StatusProbe

cases.load_all()


class Service:
    """Answers status probes from a script: each answer's body, given the id and the probe's clock."""

    def __init__(self, clock: list[int], leak: bool = False) -> None:
        self.clock = iter(clock)
        self.leak = leak
        self.ids = itertools.count()
        self.owned = "sess-theirs"

    def unknown_id(self) -> str:
        return f"sess-unknown-{next(self.ids)}"

    async def status(self, session_id: str, agent_id: str, user_id: str | None = None) -> StatusProbe:
        detail = "forbidden" if self.leak and session_id == self.owned else "not found"
        body = {"detail": f"{session_id} {detail}", "timestamp": f"2026-12-02T01:20:{next(self.clock):02d}Z"}
        return StatusProbe(httpx.Response(404, json=body))


def judge(service: Service) -> tuple[list[str], list[str]]:
    """What the one-shot comparison says, and what the confirmed one says."""

    async def run() -> tuple[list[str], list[str]]:
        unknown = await Unknown404.ask(service, "a1", "bob")
        theirs = await service.status(service.owned, "a1", "bob")
        once = unknown.differs(theirs, service.owned)
        return once, await unknown.telling(service, "a1", "bob", theirs, service.owned)

    return anyio.run(run)


def test_a_timestamp_that_ticks_after_the_calibration_is_no_leak() -> None:
    # The two unknown ids at :10, the other user's probe at :11, the bracket all at :11.
    once, confirmed = judge(Service([10, 10, 11, 11, 11, 11]))
    assert once == ["body.timestamp"]  # what a single comparison would have blamed
    assert confirmed == []


def test_a_timestamp_that_ticks_within_the_bracket_is_noise() -> None:
    once, confirmed = judge(Service([10, 10, 11, 11, 11, 12]))
    assert once == ["body.timestamp"] and confirmed == []


def test_a_body_that_tells_existence_apart_is_confirmed() -> None:
    once, confirmed = judge(Service([10, 10, 10, 10, 10, 10], leak=True))
    assert once == confirmed == ["body.detail"]

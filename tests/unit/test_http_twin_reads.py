"""The HTTP twin engines treat the two twins of a pair alike in what they read and compare: a
twin's messages read as often as its partner's (under a per-session request allowance, reads only
one of them made would spend that twin's allowance alone, and the refusals it then meets would
follow the probed role in every replay, as a side effect of status does); and a field the twins
already differ on before the probes is not compared (a change from different starts)."""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

import anyio
import httpx

from conformance.targets.http.target import HttpStatusTarget, StatusProbe
from conformance.targets.http.twins import Twin, TwinRun, lasting_disagreement


def as_target(service: object) -> HttpStatusTarget:
    """A scripted stand-in, with the target's reads the engines use."""
    return cast(HttpStatusTarget, service)


class ScriptedService:
    """Messages that always answer 200; a status of the probed session that answers 404 twice
    (a status persisted a moment late) and then agrees."""

    settle_time = 5.0

    def __init__(self) -> None:
        self.reads: Counter[str] = Counter()
        self.statuses = iter([404, 404])

    async def snapshot(self, agent_id: str, session_id: str) -> dict[str, Any]:
        self.reads[session_id] += 1
        return {"messages.code": 200}

    async def status(self, session_id: str, agent_id: str | None, **_: Any) -> StatusProbe:
        code = next(self.statuses, 200)
        return StatusProbe(httpx.Response(code, json={"status": "idle"} if code == 200 else {"detail": "no"}))


def test_each_read_of_the_probed_twin_is_matched_by_one_of_its_partner() -> None:
    service = ScriptedService()

    async def main() -> str | None:
        return await lasting_disagreement(as_target(service), "agent", "probed", alongside="other")

    assert anyio.run(main) is None
    assert service.reads["probed"] == 3 and service.reads["other"] == 3


def test_without_a_partner_only_the_session_asked_about_is_read() -> None:
    service = ScriptedService()

    async def main() -> str | None:
        return await lasting_disagreement(as_target(service), "agent", "probed")

    assert anyio.run(main) is None
    assert service.reads == Counter({"probed": 3})


class LoadedAndEvicted:
    """A pair under a cap of one: the first twin's working state already evicted (its
    event_cursor null), the second's loaded; every other field alike."""

    async def snapshot(self, agent_id: str, session_id: str) -> dict[str, Any]:
        cursor = None if session_id == "first" else "2af09c5352724c51b24923d191380375"
        return {"messages.code": 200, "messages.body.event_cursor": cursor, "messages.body.is_running": False}


def test_a_field_the_twins_start_apart_on_is_not_compared() -> None:
    details: dict[str, Any] = {}
    run = TwinRun(as_target(LoadedAndEvicted()), details)
    twins = [
        Twin("calibration", 1, "agent", "first", probed=False),
        Twin("calibration", 2, "agent", "second", probed=False),
    ]
    anyio.run(run.baseline, twins)
    assert all("messages.body.event_cursor" in twin.drift for twin in twins)
    assert "messages.body.is_running" not in twins[0].drift
    assert details["apart before the probes"] == ["messages.body.event_cursor"]

"""http.concurrency.races on scripted races: a problem one race showed is the verdict, whatever a
later race then ran into (a status unanswered, a prerequisite that failed on a loaded machine)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from conformance.cases.http import overlap

from conformance.core.outcomes import MissingInput, NotTestable, Unanswered, Violation
from conformance.targets.http.target import HttpStatusTarget

Race = Callable[[HttpStatusTarget, dict], Awaitable[str]]


def said(answer: str | BaseException) -> Race:
    async def race(http: HttpStatusTarget, details: dict) -> str:
        if isinstance(answer, BaseException):
            raise answer
        return answer

    return race


def races(monkeypatch: pytest.MonkeyPatch, chat: Race, delete: Race, answer: Race) -> dict[str, Any]:
    """Run the case with these three races on a target that drives sessions: its details."""
    monkeypatch.setattr(overlap, "_race_chat", chat)
    monkeypatch.setattr(overlap, "_race_delete", delete)
    monkeypatch.setattr(overlap, "_race_answer", answer)
    target = HttpStatusTarget.__new__(HttpStatusTarget)
    target.require_driving = lambda what: None  # a target that drives sessions
    details: dict[str, Any] = {}
    anyio.run(overlap.probes_racing_changes, target, details)
    return details


UNANSWERED = Unanswered("GET /sessions/{session_id}/status", "sess-1", 2.0)
UNPARKED = NotTestable("the session never read awaiting_permission (200 running)")


@pytest.mark.parametrize("later", [UNANSWERED, UNPARKED], ids=["unanswered", "prerequisite"])
def test_a_problem_shown_is_kept_when_a_later_race_ends_the_case(
    monkeypatch: pytest.MonkeyPatch, later: BaseException
) -> None:
    with pytest.raises(Violation) as raised:
        races(monkeypatch, said(""), said("probes racing the DELETE were answered 500"), said(later))
    assert raised.value.rule == "delete"
    assert "500" in raised.value.message


@pytest.mark.parametrize("later", [UNANSWERED, UNPARKED], ids=["unanswered", "prerequisite"])
def test_with_no_problem_shown_what_a_race_ran_into_ends_the_case(
    monkeypatch: pytest.MonkeyPatch, later: BaseException
) -> None:
    with pytest.raises(type(later)):
        races(monkeypatch, said(""), said(""), said(later))


def test_a_race_left_out_is_said_and_the_others_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    details = races(monkeypatch, said(""), said(MissingInput("no DELETE documented")), said(""))
    assert details["delete"].startswith("left out: no DELETE")
    with pytest.raises(MissingInput):
        races(monkeypatch, *(said(MissingInput("none")) for _ in range(3)))

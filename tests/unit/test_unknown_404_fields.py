"""The HTTP target's unknown-session 404, judged on canned answers whose every value is noise (a
fresh request id): the fields an answer adds or lacks still tell it apart, and the confirmation
bracket still clears what is only noise."""

from __future__ import annotations

import itertools
import uuid

import anyio
import conformance.cases as cases
import httpx
from conformance.cases.http.status import Unknown404

from conformance.targets.http.target import StatusProbe

cases.load_all()


def answer(body: dict) -> StatusProbe:
    return StatusProbe(httpx.Response(404, json=body))


def calibrated(first: dict, second: dict) -> Unknown404:
    return Unknown404(answer(first), "u1", answer(second), "u2")


def test_a_field_only_the_other_answer_has_tells_it_apart() -> None:
    unknown = calibrated({"request_id": "r1"}, {"request_id": "r2"})
    assert not unknown.comparable  # no value is the same twice
    telling = answer({"request_id": "r3", "reason": "session exists but is not yours"})
    assert unknown.differs(telling, "s9") == ["body.reason"]
    assert unknown.differs(answer({"request_id": "r4"}), "s9") == []


def test_a_noisy_field_every_unknown_answer_has_is_missed_when_absent() -> None:
    unknown = calibrated({"request_id": "r1", "detail": "no"}, {"request_id": "r2", "detail": "no"})
    assert unknown.differs(answer({"detail": "no"}), "s9") == ["body.request_id"]


def test_a_field_only_one_unknown_answer_has_is_noise_either_way() -> None:
    unknown = calibrated({"detail": "no", "trace": "t1"}, {"detail": "no"})
    assert unknown.differs(answer({"detail": "no"}), "s9") == []
    assert unknown.differs(answer({"detail": "no", "trace": "t2"}), "s9") == []


class Service:
    """404s with a fresh request id each; ``leak``: another user's existing session also says so."""

    def __init__(self, leak: bool, extra_every: int = 0) -> None:
        self.leak, self.extra_every = leak, extra_every
        self.ids, self.asked = itertools.count(), itertools.count(1)
        self.owned = "sess-theirs"

    def unknown_id(self) -> str:
        return f"sess-unknown-{next(self.ids)}"

    async def status(self, session_id: str, agent_id: str, user_id: str | None = None) -> StatusProbe:
        body = {"request_id": uuid.uuid4().hex}
        if self.leak and session_id == self.owned:
            body["reason"] = "session exists but is not yours"
        if self.extra_every and next(self.asked) % self.extra_every == 0:
            body["retry_after"] = "1"  # now and then, for any id
        return answer(body)


def judge(service: Service) -> list[str]:
    async def run() -> list[str]:
        unknown = await Unknown404.ask(service, "a1", "bob")
        theirs = await service.status(service.owned, "a1", "bob")
        return await unknown.telling(service, "a1", "bob", theirs, service.owned)

    return anyio.run(run)


def test_a_field_saying_the_session_exists_is_confirmed() -> None:
    assert judge(Service(leak=True)) == ["body.reason"]


def test_a_field_any_answer_may_carry_is_cleared_by_the_bracket() -> None:
    # The 3rd answer (the other user's) has it; the bracket's (4th to 6th): the 6th has it too.
    assert judge(Service(leak=False, extra_every=3)) == []

"""A problem a case has shown is its verdict, whatever a later step of it then runs into (a request
unanswered, a prerequisite that failed, an input that made the rest moot): Problems.kept, on its
own and in real cases of two targets driven by scripted steps."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from types import SimpleNamespace
from typing import Any, cast

import anyio
import httpx
import pytest
from conformance.cases.acp import foreground_state
from conformance.cases.http import later
from conformance.cases.mcp import access, idempotency

from conformance.core.outcomes import (
    AgentExited,
    CaseSignal,
    Info,
    MissingInput,
    NotApplicable,
    NotTestable,
    NoTurn,
    Outcome,
    Problem,
    Problems,
    Unanswered,
    Unprepared,
    Violation,
    classify,
)
from conformance.core.registry import Case, Level
from conformance.runtime import Runtime
from conformance.targets.http.target import HttpStatusTarget, StatusProbe
from conformance.targets.mcp.target import McpTarget

UNANSWERED = Unanswered("GET /sessions/{session_id}/status", "sess-1", 2.0)
LATER = [
    UNANSWERED,
    NotTestable("the session never read awaiting_permission (200 running)"),
    MissingInput("the service documents no DELETE"),
    Unprepared("POST /sessions/ failed"),
    NotApplicable("the path did not arise"),
    Info("a MAY path taken"),
]
LATER_IDS = ["unanswered", "not-testable", "missing-input", "unprepared", "n/a", "info"]


def joined(shown: list[Problem]) -> Violation:
    return Violation("; ".join(p for _, p in shown), observed=[p for _, p in shown], rule=shown[0][0])


@pytest.mark.parametrize("later_signal", LATER, ids=LATER_IDS)
def test_a_signal_after_a_problem_ends_the_case_with_the_problem(later_signal: BaseException) -> None:
    problems, details, ran = Problems(joined), {}, []
    problems.add("first", "the first step's problem")
    with pytest.raises(Violation) as raised, problems.kept(details):
        raise later_signal
        ran.append("a step after the signal")  # never: the case ends at the signal
    assert (raised.value.rule, raised.value.message) == ("first", "the first step's problem")
    assert raised.value.__cause__ is later_signal and not ran
    assert details["ended the case"].startswith(type(later_signal).__name__)
    # In a SHOULD case the outcome stays the warning shown, where the signal alone would decide
    # another (not testable, n/a, info); a status request left unanswered is the engine's to
    # judge too (test_a_status_left_unanswered_after_a_kept_warning_still_fails).
    assert classify(raised.value, Level.SHOULD).outcome is Outcome.WARN


@pytest.mark.parametrize("later_signal", LATER, ids=LATER_IDS)
def test_with_nothing_shown_the_signal_ends_the_case_as_it_is(later_signal: BaseException) -> None:
    details: dict[str, Any] = {}
    with pytest.raises(type(later_signal)) as raised, Problems(joined).kept(details):
        raise later_signal
    assert raised.value is later_signal and details == {}


def test_a_violation_inside_joins_the_problems_shown() -> None:
    problems, details = Problems(joined), {}
    problems.judge()  # nothing shown: nothing raised
    problems.add("first", "shown")
    judged = Violation("the case's own judgement", expected="e", observed={"seen": 1}, rule="second")
    with pytest.raises(Violation) as raised, problems.kept(details):
        raise judged
    assert (raised.value.rule, raised.value.message) == ("first", "shown; the case's own judgement")
    assert raised.value.observed == ["shown", "the case's own judgement"]
    assert raised.value.__cause__ is judged and "ended the case" not in details
    assert details["found later"] == [
        {"rule": "second", "message": "the case's own judgement", "expected": "e", "observed": {"seen": 1}}
    ]


def test_a_joined_violation_takes_its_place_in_the_rules_order() -> None:
    problems = Problems(joined, rules=("second", "first"))
    problems.add("first", "shown")
    with pytest.raises(Violation) as raised, problems.kept({}):
        raise BaseExceptionGroup("a task group", [Violation("later", rule="second")])
    assert (raised.value.rule, raised.value.message) == ("second", "later; shown")


def test_a_violation_inside_with_nothing_shown_or_made_by_the_problems_passes_as_it_is() -> None:
    alone = Violation("the case's own judgement", rule="second")
    with pytest.raises(Violation) as raised, Problems(joined).kept({}):
        raise alone
    assert raised.value is alone and raised.value.message == "the case's own judgement"
    problems = Problems(joined)
    problems.add("first", "shown")
    with pytest.raises(Violation) as raised, problems.kept({}):
        problems.judge()  # the problems' own Violation: not joined to itself
    assert raised.value.message == "shown"


def test_a_violation_in_words_of_its_own_still_says_the_later_one() -> None:
    problems = Problems(lambda _: Violation("the state it showed", observed={"new": "resting"}))
    problems.add(None, "resting")
    with pytest.raises(Violation) as raised, problems.kept({}):
        raise Violation("the status after the turn broke its envelope")
    assert raised.value.message == "the state it showed; then the status after the turn broke its envelope"
    assert str(raised.value) == raised.value.message


def test_rules_order_the_problems_as_the_case_lists_them() -> None:
    problems = Problems(joined, rules=("session-id", "user-id", "agent-id"))
    problems.add("agent-id", "c")
    problems.add("session-id", "a")
    problems.extend([("user-id", "b"), ("agent-id", "d")])
    assert [p for _, p in problems.shown] == ["a", "b", "c", "d"]
    with pytest.raises(Violation) as raised:
        problems.judge()
    assert raised.value.rule == "session-id"


# -- http.later.permission-answered and http.later.deleted, on scripted steps ----------------------


def probe(status: str) -> StatusProbe:
    return StatusProbe(httpx.Response(200, json={"status": status}))


def drivable() -> HttpStatusTarget:
    target = HttpStatusTarget.__new__(HttpStatusTarget)
    target.require_driving = lambda what: None  # a target that drives sessions
    target.deletes = lambda: True
    return target


def steps(*answers: Any) -> Callable[..., Any]:
    """A scripted async step: each call takes the next answer (an exception is raised)."""
    script = iter(answers)

    async def step(*_: Any, **__: Any) -> Any:
        answer = next(script)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    return step


def run_case(func: Callable[..., Any], target: Any) -> dict[str, Any]:
    details: dict[str, Any] = {}
    anyio.run(func, target, details)
    return details


@pytest.mark.parametrize("later_signal", LATER[:3], ids=LATER_IDS[:3])
def test_permission_answered_keeps_the_allowed_problem_when_the_denied_park_fails(
    monkeypatch: pytest.MonkeyPatch, later_signal: BaseException
) -> None:
    monkeypatch.setattr(later, "driven_session", steps(("agent", "s1"), ("agent", "s2")))
    monkeypatch.setattr(later, "parked_for_permission", steps(None, later_signal))
    monkeypatch.setattr(later, "answer_and_settle", steps(probe("awaiting_permission")))
    with pytest.raises(Violation) as raised:
        run_case(later.permission_answered, drivable())
    assert raised.value.rule == "allowed" and "stayed HTTP 200" in raised.value.message


def test_permission_answered_with_nothing_shown_ends_as_the_park_did(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(later, "driven_session", steps(("agent", "s1"), ("agent", "s2")))
    monkeypatch.setattr(later, "parked_for_permission", steps(None, UNANSWERED))
    monkeypatch.setattr(later, "answer_and_settle", steps(probe("idle")))
    with pytest.raises(Unanswered):
        run_case(later.permission_answered, drivable())


def test_deleted_keeps_the_idle_problem_when_the_running_probe_goes_unanswered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        later, "_delete_and_probe", steps(("the session deleted idle was then answered 200", ""), UNANSWERED)
    )
    with pytest.raises(Violation) as raised:
        run_case(later.deleted_is_404, drivable())
    assert raised.value.rule == "idle"


# -- heartbeat.idempotency.key-variants, on a scripted server ------------------------------------


class Reply:
    rejected = False

    def describe(self) -> str:
        return "a result"


class StaleProbe:
    """A state probe of `status` that reads back the later value: the call under the varied key was
    answered as a retry, not applied."""

    field = "status"

    def describe(self) -> str:
        return "status"

    def values(self, n: int) -> list[str]:
        return ["first", "later"][:n]

    def write(self, value: Any) -> dict[str, Any]:
        return {"status": value}

    async def read(self, mcp: Any, session_id: str) -> Any:
        return "later"


class Server:
    """A server whose valid heartbeats are taken until the ``refused``-th, which fails the case's
    prerequisite (NotTestable, as McpTarget.ok_heartbeat raises it)."""

    def __init__(self, refused: int) -> None:
        self.ok_calls, self.refused = 0, refused

    async def ok_heartbeat(self, session_id: str, **fields: Any) -> Reply:
        self.ok_calls += 1
        if self.ok_calls == self.refused:
            raise NotTestable(f"a valid heartbeat {fields} was answered with an error")
        return Reply()

    async def heartbeat(self, session_id: str, **fields: Any) -> Reply:
        return Reply()


def test_key_variants_keeps_the_first_form_taken_for_a_retry_when_the_second_form_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(idempotency, "calibrate", steps(StaleProbe()))
    with pytest.raises(Violation) as raised:
        run_case(idempotency.key_in_another_form_is_another_key, Server(refused=3))
    assert "upper-case" in raised.value.message and "stayed 'later'" in raised.value.message
    assert isinstance(raised.value.__cause__, CaseSignal)


class BrokenSecondRead(StaleProbe):
    """A state probe whose second read finds a problem of its own (a Violation, as a read whose
    answer breaks the tool's result shape raises it)."""

    def __init__(self) -> None:
        self.reads = 0

    async def read(self, mcp: Any, session_id: str) -> Any:
        self.reads += 1
        if self.reads == 2:
            raise Violation("the read's result was not an object", rule=None)
        return "later"


def test_key_variants_joins_a_later_violation_to_the_form_already_taken_for_a_retry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(idempotency, "calibrate", steps(BrokenSecondRead()))
    details = {}
    with pytest.raises(Violation) as raised:
        anyio.run(idempotency.key_in_another_form_is_another_key, Server(refused=0), details)
    assert "upper-case ('" in raised.value.message and "stayed 'later'" in raised.value.message
    assert raised.value.message.endswith("; the read's result was not an object")
    assert details["found later"][0]["message"] == "the read's result was not an object"


def test_key_variants_with_nothing_shown_ends_as_the_prerequisite_did(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(idempotency, "calibrate", steps(StaleProbe()))
    with pytest.raises(NotTestable):
        run_case(idempotency.key_in_another_form_is_another_key, Server(refused=1))


# -- heartbeat.access.same-caller-reconnect, on two scripted connections ---------------------------


class ReadBack:
    """A state probe that reads what the connection it reads on sees of the session."""

    field = "status"

    def values(self, n: int) -> list[str]:
        return ["written"][:n]

    def write(self, value: Any) -> dict[str, Any]:
        return {"status": value}

    async def read(self, mcp: Any, session_id: str) -> Any:
        return mcp.sees


class Answered:
    rejected, succeeded = False, True
    reply = SimpleNamespace(ok=True, result={"status": "waiting"})

    def describe(self) -> str:
        return "a result"


class Connection:
    """One connection of the same caller: what it sees of the session (``sees``) and what waiting
    for a delivery does there (``delivery``: the instructions missing, or a signal it raises)."""

    era = SimpleNamespace(version="2025-06-18", modern=False)
    can_instruct = True
    in_each_era = McpTarget.in_each_era

    def __init__(self, sees: str, delivery: Any, second: Connection | None = None) -> None:
        self.sees, self.delivery, self.second = sees, delivery, second

    def require_second_connection(self) -> None:
        return None

    async def ok_heartbeat(self, session_id: str, **fields: Any) -> Answered:
        return Answered()

    async def heartbeat(self, session_id: str, **fields: Any) -> Answered:
        return Answered()

    def items_of(self, replies: list[Any]) -> list[Any]:
        return []

    async def await_delivery(self, session_id: str, texts: list[str]) -> Any:
        if isinstance(self.delivery, BaseException):
            raise self.delivery
        return SimpleNamespace(missing=texts if self.delivery else [])

    @contextlib.asynccontextmanager
    async def same_caller(self) -> AsyncIterator[Connection]:
        assert self.second is not None
        yield self.second


@pytest.mark.parametrize(
    "later_signal",
    [UNANSWERED, NotTestable("a valid heartbeat was answered with an error")],
    ids=["unanswered", "not-testable"],
)
def test_reconnect_keeps_the_state_the_second_connection_showed_when_the_first_s_delivery_fails(
    monkeypatch: pytest.MonkeyPatch, later_signal: BaseException
) -> None:
    """The second connection shows the session with another state (a session of its own), and the
    instruction pending there is not delivered; the first connection's wait for that instruction
    then runs into a signal: the state already shown is the case's finding."""
    monkeypatch.setattr(access, "calibrated", steps((ReadBack(), "")))
    monkeypatch.setattr(access, "enqueue", steps(None))
    first = Connection("written", later_signal, second=Connection("stale", "missing"))
    details: dict[str, Any] = {}
    with pytest.raises(Violation) as raised:
        anyio.run(access.same_caller_keeps_its_sessions, first, details)
    assert "its session showed status 'stale', not the 'written' it wrote" in raised.value.message
    assert raised.value.message.startswith("over MCP 2025-06-18, the same caller on a second connection")
    assert details["ended the case"].startswith(type(later_signal).__name__)


def test_reconnect_with_nothing_shown_ends_as_the_delivery_did(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(access, "calibrated", steps((ReadBack(), "")))
    monkeypatch.setattr(access, "enqueue", steps(None))
    first = Connection("written", UNANSWERED, second=Connection("written", "missing"))
    with pytest.raises(Unanswered):
        anyio.run(access.same_caller_keeps_its_sessions, first, {})


# -- status.state.known-values (a SHOULD case), on scripted answers --------------------------------


class Agent:
    async def new_session(self) -> str:
        return "sess-1"

    async def prompt(self, session_id: str, text: str) -> None:
        return None


@pytest.mark.parametrize(
    "after_turn",
    [
        NotApplicable("the agent is not reporting foreground state"),
        Unanswered("session/prompt", 3, 5.0, clock="turn"),
    ],
    ids=["state-not-reported", "turn-unanswered"],
)
def test_known_values_keeps_the_new_sessions_unrecognised_state(
    monkeypatch: pytest.MonkeyPatch, after_turn: BaseException
) -> None:
    monkeypatch.setattr(foreground_state, "_state_or_skip", steps(("resting", None), after_turn))
    with pytest.raises(Violation) as raised:
        run_case(foreground_state.state_values_are_known, Agent())
    assert "unrecognised foreground state {'new': 'resting'}" in raised.value.message
    assert classify(raised.value, Level.SHOULD).outcome is Outcome.WARN  # not n/a, not not-testable


ENDINGS = [
    NoTurn("the run's prompt budget is spent (--max-prompts 20)", "budget spent"),
    AgentExited(1, "Traceback: boom", None),
    BaseExceptionGroup("a task group", [ValueError("x")]).derive([UNANSWERED]),
]


@pytest.mark.parametrize("later_end", ENDINGS, ids=["no-turn", "agent-exited", "task-group"])
def test_a_turn_not_sent_an_exit_or_a_task_groups_signal_keeps_the_problem(later_end: BaseException) -> None:
    problems, details = Problems(joined), {}
    problems.add("first", "the first step's problem")
    with pytest.raises(Violation) as raised, problems.kept(details):
        raise later_end
    assert raised.value.rule == "first" and "ended the case" in details


def test_an_interruption_goes_on_as_it_is() -> None:
    problems = Problems(joined)
    problems.add("first", "shown")
    group = BaseExceptionGroup("a task group", [UNANSWERED, KeyboardInterrupt()])
    with pytest.raises(BaseExceptionGroup), problems.kept({}):
        raise group
    with pytest.raises(ValueError), problems.kept({}):
        raise ValueError("a harness error")


def test_a_status_left_unanswered_after_a_kept_warning_still_fails() -> None:
    """A SHOULD case that showed a problem and then had a status request go unanswered: the kept
    warning does not hide the status method's own MUST (the engine judges the cause too)."""
    problems = Problems(joined)
    problems.add("first", "an unrecognised state")
    with pytest.raises(Violation) as raised, problems.kept({}):
        raise Unanswered("session/status", "sess-1", 2.0)
    runtime = SimpleNamespace(
        target=SimpleNamespace(is_status_call=lambda method: method == "session/status"),
        strict=False,
        status_asked=lambda: True,
        _agent=None,
        stderr=SimpleNamespace(since=lambda mark: ""),
    )
    runtime._status_unanswered = lambda case, cause, mark: Runtime._status_unanswered(
        cast(Runtime, runtime), case, cause, mark
    )
    should = Case(
        "status.state.known-values",
        Level.SHOULD,
        cast(Any, None),
        ("status",),
        func=cast(Any, None),
        target="acp",
    )
    result = Runtime._judge(cast(Runtime, runtime), should, raised.value, 0)
    assert result.outcome is Outcome.FAIL and result.rule == "first"
    assert result.message.startswith("an unrecognised state; then ")
    other = Violation("shown", rule="first")
    other.__cause__ = Unanswered("session/list", "", 2.0)
    assert Runtime._judge(cast(Runtime, runtime), should, other, 0).outcome is Outcome.WARN

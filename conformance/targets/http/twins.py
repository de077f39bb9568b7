"""Differential twins for `GET /sessions/{id}/status`: sessions treated alike but for the probes.

A side effect of a status probe may show only later, under pressure: a probe that counts as
use keeps a session in memory while another is evicted, resets an idle timer, spends a request
allowance, or is remembered across a restart. No single answer shows it; a comparison does. So
the engine makes sessions of one user and agent in pairs (twins), brings each into the same
state (parked on a permission request where the service parks, else idle after one turn),
probes one twin of a pair (one by one and in bursts of concurrent probes; before, during and
after the pressure) and leaves the other alone, puts every session under the same pressure
(time, memory, use, a restart) and compares what the service then shows of each (its status,
its messages, its listing entry, and which fields of them the pressure changed).

Symmetry keeps an honest policy (least recently used, a time to live) from looking like a side
effect: two pairs are probed, one whose first-created twin is probed and one whose second-created
twin is. Under a service whose probes change nothing a session's fate depends on its place, not
on the probes, so where the twins of a pair end apart, they end apart the other way round in the
other pair. The probed twin ending unlike the twin beside it the same way in both pairs is a side
effect (rule ``probed``). A third pair, which no probe asks, goes through the same pressure first,
on its own (the calibration pair): the unprobed twin beside a probed one ending unlike the
calibration twin in its place, in both pairs, is a side effect on a neighbour (rule
``neighbour``: probes of one session kept the other alive). A calibration pair the pressure
changed nothing of cannot show what a probe changed: the case is then not testable, unless a
probed pair deviates anyway. And each session's status must still agree with its own messages
(rule ``consistent``): a parked call still waiting reads awaiting_*, none reads idle.

:class:`Fate` and :func:`judge` are plain data (tests/targets/http/test_http.py); :class:`TwinRun`
does the I/O.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from conformance.core.outcomes import MissingInput
from conformance.targets.http.calibration import differing, flatten, parsed

if TYPE_CHECKING:
    from conformance.targets.http.target import HttpStatusTarget, StatusProbe

__all__ = [
    "BURST",
    "PAIRS",
    "WAITING",
    "Fate",
    "Judgement",
    "Twin",
    "TwinRun",
    "judge",
    "lasting_disagreement",
    "no_longer_waiting",
    "shared",
    "tail_of",
]

BURST = 8  # probes sent together, each time a probed twin is treated
PAIRS = ("calibration", "probed-first", "probed-second")  # which twin of each pair is probed: none, 1st, 2nd
PARKED = ("awaiting_permission", "awaiting_external_result")
WAITING = {"asking": "awaiting_permission", "submitted": "awaiting_external_result"}
_MESSAGE = re.compile(r"^messages\.body\.messages\[(\d+)\]\.(role|finished_reason)$")
_BLOCK = re.compile(r"^messages\.body\.messages\[(\d+)\]\.content\[(\d+)\]\.(type|state)$")


@dataclass(frozen=True)
class Fate:
    """What the service shows of one twin after the pressure, in terms twins can share (no ids,
    texts or times: what kind of answer, what kinds of messages, which fields changed)."""

    status: str  # "HTTP 200 idle", "HTTP 404"
    messages: str  # "HTTP 200"
    tail: tuple[str, ...]  # each message: "role: block/state, … (finished_reason)"
    listed: bool
    # Fields of its view the pressure changed, each with what it became (what varies per read left out).
    changed: tuple[str, ...]
    answer: str = ""  # the answer to the request the use pressure sent it ("accepted", "HTTP 429")

    def differences(self, other: Fate) -> list[str]:
        found = []
        for name in ("status", "messages", "answer", "listed", "tail"):
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine != theirs:
                found.append(f"{name} {_shown(mine)} against {_shown(theirs)}")
        if self.changed != other.changed:
            only = sorted(set(self.changed) ^ set(other.changed))
            found.append(f"fields changed differently ({', '.join(only[:4])}{' …' if len(only) > 4 else ''})")
        return found

    def describe(self) -> str:
        parts = [f"status {self.status}", f"messages {self.messages}"]
        if self.answer:
            parts.append(f"its request {self.answer}")
        parts.append("listed" if self.listed else "not listed")
        if self.changed:
            parts.append(f"{len(self.changed)} fields changed by the pressure")
        return ", ".join(parts)


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + "; ".join(value)[:200] + "]"
    return repr(value) if isinstance(value, bool) else str(value)


def tail_of(view: dict[str, Any]) -> tuple[str, ...]:
    """The kinds of the messages a flattened view shows: role, block types and states, and why a
    reply finished, per message (what two twins treated alike share)."""
    messages: dict[int, dict[str, Any]] = {}
    for path, value in view.items():
        head = _MESSAGE.match(path)
        if head:
            messages.setdefault(int(head.group(1)), {"blocks": {}})[head.group(2)] = value
            continue
        block = _BLOCK.match(path)
        if block:
            entry = messages.setdefault(int(block.group(1)), {"blocks": {}})
            entry["blocks"].setdefault(int(block.group(2)), {})[block.group(3)] = value
    out = []
    for index in sorted(messages):
        entry = messages[index]
        blocks = ", ".join(
            "/".join(str(b[k]) for k in ("type", "state") if k in b)
            for _, b in sorted(entry["blocks"].items())
        )
        finished = f" ({entry['finished_reason']})" if entry.get("finished_reason") else ""
        out.append(f"{entry.get('role')}: {blocks}{finished}")
    return tuple(out)


def waiting_states(view: dict[str, Any]) -> set[str]:
    """The states of the last assistant message's tool calls that still wait ("asking", "submitted")."""
    tail = tail_of(view)
    for message in reversed(tail):
        if message.startswith("assistant:"):
            return {s for s in WAITING if f"tool_call/{s}" in message}
    return set()


def no_longer_waiting(calls: list[dict[str, Any]], view: dict[str, Any]) -> list[dict[str, Any]]:
    """The calls that waited (tool call blocks, as the messages showed them) which a later view
    of the session's messages shows waiting no more: no tool call block with the call's id still
    waits, whether or not a result now names it (one the service made up itself, as an interrupt
    makes, is no answer from the user or the executor)."""
    found = []
    for call in calls:
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id:
            continue
        blocks = {
            path.removesuffix(".id")
            for path, value in view.items()
            if value == call_id
            and path.startswith("messages.")
            and path.endswith(".id")
            and view.get(path.removesuffix(".id") + ".type") == "tool_call"
        }
        if not any(view.get(f"{block}.state") in WAITING for block in blocks):
            found.append(call)
    return found


@dataclass
class Twin:
    """One session of a pair: where it stands, whether it is probed, what it showed before."""

    pair: str
    place: int  # 1: created first in its pair, 2: second
    agent_id: str
    sid: str
    probed: bool
    before: dict[str, Any] = field(default_factory=dict)
    drift: set[str] = field(default_factory=set)
    answer: str = ""
    probes: list[str] = field(default_factory=list)  # answers its treatment probes got (one of each kind)

    @property
    def label(self) -> str:
        role = "probed" if self.probed else "unprobed"
        return f"{self.pair} pair, {'first' if self.place == 1 else 'second'}-created ({role}) {self.sid}"


_ABSENT = object()


def _kind(value: Any) -> str:
    """A changed field's new value as twins can share it: a word as it is (a status, a state), and
    of a value that names one twin (an id, a time: it has digits) or a number, only its kind."""
    if value is _ABSENT:
        return "absent"
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, str):
        return "<text>" if any(c.isdigit() for c in value) or len(value) > 40 else repr(value)
    return f"<{type(value).__name__}>"


def shared(view: dict[str, Any]) -> dict[str, str]:
    """A flattened view in the terms two twins treated alike share: words as they are, each value
    that names one session (an id, a time) or a number by its kind only."""
    return {path: _kind(value) for path, value in view.items()}


def http_view(response: Any) -> dict[str, Any]:
    """A messages answer flattened as :meth:`HttpStatusTarget.snapshot` flattens it."""
    return flatten({"code": response.status_code, "body": parsed(response.text)}, "messages")


def fate_of(twin: Twin, after: dict[str, Any], drift: set[str], status: StatusProbe) -> Fate:
    word = f" {status.status}" if 200 <= status.code < 300 and status.status is not None else ""
    changed = [
        f"{path} -> {_kind(after.get(path, _ABSENT))}" for path in differing(twin.before, after) - drift
    ]
    return Fate(
        status=f"HTTP {status.code}{word}",
        messages=f"HTTP {after.get('messages.code')}",
        tail=tail_of(after),
        listed=any(p.startswith("listing") for p in after),
        changed=tuple(sorted(changed)),
        answer=twin.answer,
    )


@dataclass
class Judgement:
    rule: str  # "probed", "neighbour", "consistent"; "" when nothing deviates
    message: str
    observed: dict[str, str]
    notes: list[str]


def judge(fates: dict[tuple[str, int], Fate], unobserved: str | None, consistency: list[str]) -> Judgement:
    """The verdict on three pairs' fates, keyed by (pair, place). ``unobserved`` says why the
    pressure showed nothing on the calibration pair (None when it did); ``consistency`` lists
    sessions whose status disagrees with their own messages."""
    a1, a2 = fates[("probed-first", 1)], fates[("probed-first", 2)]
    b1, b2 = fates[("probed-second", 1)], fates[("probed-second", 2)]
    c1, c2 = fates[("calibration", 1)], fates[("calibration", 2)]
    observed = {f"{pair} #{place}": fate.describe() for (pair, place), fate in sorted(fates.items())}
    notes: list[str] = []
    first, second = a1.differences(a2), b2.differences(b1)
    if first and second and not a1.differences(b2) and not a2.differences(b1):
        return Judgement(
            "probed",
            f"the probed twin ended unlike the unprobed twin beside it, the same way whether it was created first "
            f"or second ({'; '.join(first)})",
            observed,
            notes,
        )
    if first or second:
        notes.append(
            "the twins of a pair ended apart, not the same way with the roles swapped (their places, not the "
            f"probes, decide): {'; '.join(first or second)}"
        )
    beside_first, beside_second = a2.differences(c2), b1.differences(c1)
    if beside_first and beside_second:
        return Judgement(
            "neighbour",
            "the unprobed twin beside a probed one ended unlike the twin in its place in the pair no probe asked, "
            f"whether it was created first or second ({'; '.join(beside_first)})",
            observed,
            notes,
        )
    if beside_first or beside_second:
        notes.append(
            "an unprobed twin beside a probed one ended unlike the calibration twin in its place once, not again "
            f"with the roles swapped: {'; '.join(beside_first or beside_second)}"
        )
    if consistency:
        return Judgement("consistent", "; ".join(consistency), observed, notes)
    if unobserved:
        return Judgement("unobserved", unobserved, observed, notes)
    return Judgement("", "", observed, notes)


# -- the I/O --------------------------------------------------------------------------------------


class TwinRun:
    """Pairs of twins on one service: made, brought into one state, probed, observed."""

    def __init__(self, http: HttpStatusTarget, details: dict[str, Any]) -> None:
        self.http = http
        self.details = details
        self.parks: bool | None = None  # the starting state: parked on permission, else idle after a turn
        self.twins: list[Twin] = []

    async def pair(self, name: str) -> tuple[Twin, Twin]:
        """Two sessions made one after the other, each brought into the starting state (the
        first twin's turn started first)."""
        made = []
        for place in (1, 2):
            agent_id, sid = await self.http.new_session()
            made.append(Twin(name, place, agent_id, sid, probed=PAIRS.index(name) == place))
        if self.parks is None:  # the first twin tells which state every twin starts in
            await self._prepare([made[0]])
            await self._prepare([made[1]])
        else:
            await self._prepare(made)
        self.twins += made
        return made[0], made[1]

    async def one(self, name: str, place: int) -> Twin:
        """One twin of pair ``name`` made on its own and brought into the starting state: where
        the service holds fewer sessions than a pair has, each twin goes through its pressure alone
        (its partner, made later, through the same)."""
        agent_id, sid = await self.http.new_session()
        twin = Twin(name, place, agent_id, sid, probed=PAIRS.index(name) == place)
        await self._prepare([twin])
        self.twins.append(twin)
        return twin

    async def _prepare(self, twins: list[Twin]) -> None:
        """One turn each: a permission request the turn parks on (where the service parks the
        first twin's turn), else a plain answer. Told by the messages alone: a status probe here
        would treat every twin, the unprobed ones too."""
        http = self.http
        parking = self.parks is not False
        text = "[permission] write the probe file" if parking else "say OK"
        tags = [await http.chat(twin.agent_id, twin.sid, text) for twin in twins]
        for tag in tags:
            if await http.wait_for_model(tag, timeout=http.settle_time) is None:
                raise MissingInput(
                    f"the run had not called its model {http.settle_time:g} s after POST /chat/ (--timeout): no "
                    "twin could be brought into a state"
                )
        async with anyio.create_task_group() as tg:
            for twin in twins:
                tg.start_soon(self.rest, twin)
        for twin in twins:
            calls = await http.waiting_calls(twin.agent_id, twin.sid)
            parked = bool(calls) and any(c.get("state") == "asking" for c in calls)
            if self.parks is None:
                self.parks = parked
                self.details["starting_state"] = (
                    "parked on a permission request" if parked else "idle after a turn"
                )
            elif parking and not parked:
                raise MissingInput(
                    f"a twin did not park on a permission request as the first one did (its waiting calls: "
                    f"{calls!r:.200}): the twins could not be brought into the same state"
                )

    async def rest(self, twin: Twin, *, answered: bool = False) -> None:
        """Until two reads of the twin's messages agree (its turn has ended or parked, and where
        the messages say whether a run holds the session, none does; once ``answered``, no call
        waits any more), at most --timeout."""
        http = self.http
        last: Any = None
        with anyio.move_on_after(http.settle_time):
            while True:
                response = await http.driver.messages(http.user_id, twin.agent_id, twin.sid)
                body = parsed(response.text) if response.status_code == 200 else None
                running = body.get("is_running") if isinstance(body, dict) else None
                view = http_view(response)
                now = (response.status_code, tail_of(view), running)
                waiting = answered and response.status_code == 200 and waiting_states(view)
                if now == last and running is not True and not waiting:
                    return
                last = now
                await anyio.sleep(0.05)

    async def baseline(self, twins: list[Twin]) -> None:
        """Each twin's view, read twice: what differs between the reads is its noise; and what
        already differs between the two twins of a pair, in the terms they share (one still loaded
        and one evicted where a cap holds fewer sessions than a pair has), since a change from
        different starts cannot be compared."""
        for twin in twins:
            twin.before = await self.http.snapshot(twin.agent_id, twin.sid)
        for twin in twins:
            twin.drift = differing(twin.before, await self.http.snapshot(twin.agent_id, twin.sid))
        apart: set[str] = set()
        for twin in twins:
            partner = next((t for t in twins if t.pair == twin.pair and t is not twin), None)
            if partner is not None:
                mine, theirs = shared(twin.before), shared(partner.before)
                apart |= {p for p in mine.keys() | theirs.keys() if mine.get(p) != theirs.get(p)}
        for twin in twins:
            twin.drift |= apart
        if apart:
            self.details["apart before the probes"] = sorted(apart)[:8]

    async def treat(self, twins: list[Twin], burst: int = BURST) -> None:
        """The probed twins' treatment: one probe, then ``burst`` probes sent together."""
        http = self.http

        async def probe(twin: Twin) -> None:
            first = await http.status(twin.sid, twin.agent_id)
            answers = [first]

            async def one() -> None:
                answers.append(await http.status(twin.sid, twin.agent_id))

            async with anyio.create_task_group() as tg:
                for _ in range(burst):
                    tg.start_soon(one)
            for answer in answers:
                shown = answer.describe()[:120]
                if shown not in twin.probes and len(twin.probes) < 8:
                    twin.probes.append(shown)

        async with anyio.create_task_group() as tg:
            for twin in twins:
                if twin.probed:
                    tg.start_soon(probe, twin)

    async def hold(self, twins: list[Twin], seconds: float) -> None:
        """``seconds`` of the pressure of time, the probed twins treated every sixth of it."""
        step = max(0.2, seconds / 6)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            await self.treat(twins)
            await anyio.sleep(max(0.0, min(step, deadline - time.monotonic())))

    async def observe(self, twins: list[Twin]) -> tuple[dict[tuple[str, int], Fate], list[str]]:
        """Each twin's fate (its messages and listing read first, then its status), and the
        sessions whose status disagrees with their own messages."""
        views = {}
        for twin in twins:
            views[twin.sid] = await self.http.snapshot(twin.agent_id, twin.sid)
        drift = set().union(*(t.drift for t in twins))
        fates: dict[tuple[str, int], Fate] = {}
        problems = []
        for twin in twins:
            status = await self.http.status(twin.sid, twin.agent_id)
            fates[(twin.pair, twin.place)] = fate_of(twin, views[twin.sid], drift, status)
            if disagreement(views[twin.sid], status):
                partner = next((t.sid for t in twins if t.pair == twin.pair and t is not twin), None)
                problem = await lasting_disagreement(self.http, twin.agent_id, twin.sid, alongside=partner)
                if problem:
                    problems.append(f"{twin.label}: {problem}")
        return fates, problems


SETTLE_POLL = 0.1  # seconds between the reads that wait for views to agree


async def lasting_disagreement(
    http: HttpStatusTarget, agent_id: str, session_id: str, *, alongside: str | None = None
) -> str | None:
    """A disagreement between the session's status and its messages (:func:`disagreement`) that
    lasts --timeout, or None once they agree: a service may persist what its status reads a moment
    after what its messages show (a run taking an answer up), and a session may move on between
    two reads. Each read of the messages is matched by one of ``alongside`` (its twin), so the two
    spend a per-session request allowance alike: only the status calls tell them apart."""
    problem: str | None = None

    async def agree() -> bool:
        nonlocal problem
        view = await http.snapshot(agent_id, session_id)
        if alongside is not None:
            await http.snapshot(agent_id, alongside)
        problem = disagreement(view, await http.status(session_id, agent_id))
        return problem is None

    await settled(http, agree)
    return problem


async def settled(http: HttpStatusTarget, condition: Callable[[], Awaitable[bool]]) -> bool:
    """Whether ``condition`` came true, asked again every SETTLE_POLL seconds, at most --timeout."""
    with anyio.move_on_after(http.settle_time):
        while not await condition():
            await anyio.sleep(SETTLE_POLL)
        return True
    return False


def disagreement(view: dict[str, Any], status: StatusProbe) -> str | None:
    """Why a session's status disagrees with its own messages (read just before), or None: a
    tool call still waiting reads its awaiting_* (a run may hold the lease meanwhile: running),
    none waiting never reads awaiting_*; a session whose messages answer 200 is not 404."""
    if view.get("messages.code") != 200:
        return None
    if status.code == 404:
        return f"its status is {status.describe()} while its messages answer 200"
    if status.code != 200:
        return None
    waiting = waiting_states(view)
    word = status.status
    if waiting and word not in {WAITING[s] for s in waiting} | {"running"}:
        return f"its messages show a tool call still waiting ({', '.join(sorted(waiting))}), its status reads {word!r}"
    if not waiting and word in PARKED:
        return f"its messages show no tool call waiting, its status reads {word!r}"
    return None

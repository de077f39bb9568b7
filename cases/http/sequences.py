"""HTTP status inside a differential sequence: two sessions treated alike by every step, probed apart.

The steps are drawn (from the run's seed) out of what the service's API offers a session in its
state: a turn, a turn parked on a permission request or on an external executor, the answers to
those (allow, deny, a result), an interrupt, a wait. Each is applied to both twins of a pair;
every way of asking the status (GET, a revalidation with the ETag the service sent, HEAD, the
path with a trailing slash, another language, another user) goes to one twin only. After each
step every view the service offers of both (their messages and listing entries, field by field,
in the terms two sessions share: words as they are, ids and times by kind) must agree, and the
probes must change nothing of the probed twin that time did not change of the other.

A divergence is shrunk first: cut after the step it was seen at, then steps are removed one at a
time (conformance/core/shrinking.py) while a replay on a fresh pair still parts the twins on the
same field, never into a sequence the states do not allow. Then it is confirmed before it is
blamed on the probes: the shrunk steps are replayed on a fresh pair whose other twin is probed.
Only a divergence that follows the probe (the same field, the probed twin showing the same value
both times) is a side effect; one that stays with a place (the first-created session evicted
first) or does not come back (a run ending a moment later in one twin) is shown, not judged.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import anyio
from conformance.cases.http.status import HTTP_CAPABILITY, SAFE

from conformance.core.outcomes import Problems, Violation
from conformance.core.registry import Level, case
from conformance.core.shrinking import shrink_steps
from conformance.targets.http.agentscope import segment
from conformance.targets.http.calibration import differing
from conformance.targets.http.target import HttpStatusTarget
from conformance.targets.http.twins import (
    WAITING,
    lasting_disagreement,
    settled,
    shared,
    tail_of,
    waiting_states,
)

STEPS = 4  # lifecycle steps of a sequence
SHRINK_SECONDS = 60.0  # of replays shrinking a divergence (the shortest found by then is kept)
WAIT_FIRST = 0.5  # seconds of a sequence's first wait; each later one twice the last, up to --hold
WATCH_HOLDS = 2  # a sequence that leaves the twins parked watches them this many holds, in growing waits
CHOICES = {
    "idle": ("say", "park", "external", "wait"),
    "asking": ("allow", "deny", "interrupt", "wait"),
    "submitted": ("submit", "interrupt", "wait"),
}
AFTER = {"say": "idle", "park": "asking", "external": "submitted", "allow": "idle", "deny": "idle"}
AFTER |= {"submit": "idle", "interrupt": "idle"}
TEXTS = {"say": "say OK", "park": "[permission] write the probe file", "external": "[external] ask the user"}


@dataclass
class Divergence:
    """Where the twins parted after a step: the field, and what the probed and the other showed."""

    step: int
    # "views" (after the step), "probes" (the probe phase changed the field), "status" (at the end),
    # "consistent" (the probed twin's status against its own messages, after a wait)
    where: str
    path: str
    probed: str
    other: str

    @property
    def key(self) -> tuple[int, str, str, str, str]:
        return (self.step, self.where, self.path, self.probed, self.other)

    def describe(self, steps: list[str]) -> str:
        when = f"after step {self.step + 1} ({steps[self.step]})"
        if self.where == "consistent":
            return f"{when}, the probed twin's status disagrees with its own messages: {self.probed}"
        if self.where == "status":
            return f"at the end, the status reads {self.probed} for the probed twin and {self.other} for the other"
        if self.where == "probes":
            return f"{when}, the probes changed {self.path} of the probed twin (now {self.probed}), not of the other"
        return f"{when}, {self.path} reads {self.probed} for the probed twin and {self.other} for the other"


@dataclass
class Pair:
    agent_id: str
    first: str  # created first
    second: str
    probed_first: bool

    @property
    def probed(self) -> str:
        return self.first if self.probed_first else self.second

    @property
    def other(self) -> str:
        return self.second if self.probed_first else self.first


def draw(rng: random.Random) -> list[str]:
    """A sequence of STEPS steps, each one the state the twins are in allows."""
    steps, state = [], "idle"
    for _ in range(STEPS):
        step = rng.choice(CHOICES[state])
        steps.append(step)
        state = AFTER.get(step, state)
    return steps


@case(
    "http.twins.sequence",
    level=Level.MUST,
    spec=SAFE,
    needs=HTTP_CAPABILITY,
    rules=("probed", "consistent"),
    slow=True,
)
async def twins_through_a_sequence(http: HttpStatusTarget, details: dict) -> None:
    """Twin sessions through a drawn sequence of turns, parked turns, answers, interrupts and
    waits (each twice the last, up to --hold; twins left parked are watched two holds more), every
    way of asking the status sent to one of them only: after each step their messages and listing
    entries agree, the probes change nothing of the probed twin that the other did not see change,
    after each wait the probed twin's status agrees with its own messages, and at the end both read
    the same status. A divergence is shrunk to the fewest steps that still show it, and counts once
    it follows the probe to the other twin in a replay of those with the roles swapped."""
    http.require_driving("twin sessions driven through a sequence")
    steps = draw(random.Random(http.harness.config.seed or 0))
    details["sequence"] = steps
    found = await _run(http, steps, probed_first=True, details=details)
    details["diverged"] = [d.describe(steps) for d in found]
    if not found:
        return
    own = [d for d in found if d.where == "consistent"]
    if own:  # the probed twin against its own messages: no twin to swap roles with
        shown = Problems(
            lambda _: Violation(
                f"{own[0].describe(steps)} (the sequence {', '.join(steps)}, shrunk from {len(details['sequence'])} "
                f"steps; the twins watched {details.get('watched', 0):g} s in growing waits)",
                expected="a tool call still waiting reads its awaiting_* status, none waiting never does",
                observed=[d.describe(steps) for d in own][:6],
                rule="consistent",
            )
        )
        shown.add("consistent", own[0].describe(steps))
        with shown.kept(details):  # the shrinking's replays running into a signal keep what the run showed
            steps, own = await _shrink(http, steps, own, details)
        raise shown.violation()
    steps, found = await _shrink(http, steps, found, details)
    again = {d.key for d in await _run(http, steps, probed_first=False)}
    confirmed = [d for d in found if d.key in again]
    details["confirmed"] = [d.describe(steps) for d in confirmed]
    if confirmed:
        raise Violation(
            f"twin sessions treated alike but for the status probes parted: {confirmed[0].describe(steps)} "
            f"(the sequence {', '.join(steps)}, shrunk from {len(details['sequence'])} steps); replayed with the "
            "other twin probed, the difference followed the probe",
            expected="the probed twin shows what its twin shows, after every step",
            observed=[d.describe(steps) for d in confirmed][:6],
            rule="probed",
        )


def allowed(steps: list[str]) -> bool:
    """The sequence takes only steps the state it leads the twins into allows (from idle)."""
    state = "idle"
    for step in steps:
        if step not in CHOICES[state]:
            return False
        state = AFTER.get(step, state)
    return True


def needed(divergence: Divergence, steps: list[str]) -> int:
    """How many steps a divergence needed: up to the step it was seen after (all, at the end)."""
    return len(steps) if divergence.where == "status" else divergence.step + 1


async def _shrink(
    http: HttpStatusTarget, steps: list[str], found: list[Divergence], details: dict
) -> tuple[list[str], list[Divergence]]:
    """The shortest sequence that still parts the twins the same way (the first divergence's
    field, where it was seen), replayed with the same twin probed; with what its last replay showed."""
    where = (found[0].where, found[0].path)
    last = {"steps": steps, "found": found}

    async def fails(trial: list[str]) -> int | None:
        got = [d for d in await _run(http, trial, probed_first=True) if (d.where, d.path) == where]
        if not got:
            return None
        last["steps"], last["found"] = trial, got
        return needed(got[0], trial)

    cut = steps[: needed(found[0], steps)]
    deadline = time.monotonic() + SHRINK_SECONDS
    shrunk, replays = await shrink_steps(cut, fails, valid=allowed, deadline=deadline)
    if shrunk != last["steps"]:  # the cut itself was never replayed apart (no step could go)
        last["steps"] = shrunk
        last["found"] = [d for d in await _run(http, shrunk, probed_first=True) if (d.where, d.path) == where]
        replays += 1
        if not last["found"]:  # not reproduced alone: the drawn sequence is what is shown
            last["steps"], last["found"] = steps, found
    details["shrunk"] = last["steps"]
    details["shrink_replays"] = replays
    return list(last["steps"]), list(last["found"])


async def _run(
    http: HttpStatusTarget, steps: list[str], *, probed_first: bool, details: dict | None = None
) -> list[Divergence]:
    # Both created with the optional parameters the service documents (each a value of its own
    # where it is a free string: a service may keep one session per workspace).
    http.require_driving("twin sessions")
    draw = http.creation_draw()
    agent_id, first = await http.new_session(varied=True, draw=draw)
    _, second = await http.new_session(varied=True, draw=draw)
    if details is not None:
        details["created_with"] = http.creation_details(first, second)
    pair = Pair(agent_id, first, second, probed_first)
    found: list[Divergence] = []
    state, waited = "idle", []
    for index, step in enumerate(steps):
        befores = {sid: tail_of(await http.snapshot(agent_id, sid)) for sid in (pair.probed, pair.other)}
        # By place, not by role: what the order of the requests does stays with a place in the replay.
        order = [pair.first, pair.second] if index % 2 == 0 else [pair.second, pair.first]
        for sid in order:
            await _apply(http, pair, sid, step)
        state = AFTER.get(step, state)
        if step == "wait":
            waited.append(_pause(http, waited))
            await anyio.sleep(waited[-1])
        for sid in order:
            await _reach(http, agent_id, sid, state, befores[sid], step)
        if step == "wait":
            found += await _consistent(http, pair, index)
        found += await _compare(http, pair, index)
        found += await _probe(http, pair, index)
    if steps and state in WAITING:
        found += await _watch(http, pair, len(steps) - 1, waited)
    if details is not None:
        details["watched"] = round(sum(waited), 2)
        details["waits"] = waited
    return found + await _statuses(http, pair, len(steps) - 1)


def _pause(http: HttpStatusTarget, waited: list[float]) -> float:
    """The next wait: twice the last (the first WAIT_FIRST), never longer than --hold."""
    return round(min(http.harness.config.hold_seconds, WAIT_FIRST * 2 ** len(waited)), 2)


async def _watch(http: HttpStatusTarget, pair: Pair, index: int, waited: list[float]) -> list[Divergence]:
    """The twins left parked: watched in waits of growing length (each at most --hold) for
    WATCH_HOLDS holds, the probed twin's status checked against its messages after each, so a
    parked state a service forgets later than one hold is seen; then what the twins show."""
    budget = WATCH_HOLDS * http.harness.config.hold_seconds
    spent = 0.0
    while spent < budget:
        pause = min(_pause(http, waited), round(budget - spent, 2))
        if pause <= 0:
            break
        waited.append(pause)
        spent += pause
        await anyio.sleep(pause)
        problems = await _consistent(http, pair, index)
        if problems:
            return problems
    return await _compare(http, pair, index)


async def _consistent(http: HttpStatusTarget, pair: Pair, index: int) -> list[Divergence]:
    """The probed twin's status against its own messages (a tool call still waiting reads its
    awaiting_*, none waiting never does), read again until they agree, at most --timeout; the
    other twin's messages read as often."""
    problem = await lasting_disagreement(http, pair.agent_id, pair.probed, alongside=pair.other)
    return [] if problem is None else [Divergence(index, "consistent", "the status", problem, "its messages")]


async def _statuses(http: HttpStatusTarget, pair: Pair, index: int) -> list[Divergence]:
    """Once the sequence is over, the other twin is asked too: both statuses must agree (read
    again until they do, at most --timeout)."""
    words: dict[str, str] = {}

    async def agree() -> bool:
        for sid in (pair.probed, pair.other):
            probe = await http.status(sid, pair.agent_id)
            words[sid] = (
                f"HTTP {probe.code} {probe.status}" if probe.status is not None else f"HTTP {probe.code}"
            )
        return words[pair.probed] == words[pair.other]

    await settled(http, agree)
    if words.get(pair.probed) == words.get(pair.other):
        return []
    return [
        Divergence(index, "status", "the status", words.get(pair.probed, "?"), words.get(pair.other, "?"))
    ]


async def _apply(http: HttpStatusTarget, pair: Pair, sid: str, step: str) -> None:
    user, agent_id = http.user_id, pair.agent_id
    if step in TEXTS:
        await http.chat(agent_id, sid, TEXTS[step])
    elif step in ("allow", "deny"):
        await http.driver.confirm(user, agent_id, sid, allow=step == "allow")
    elif step == "submit":
        await http.driver.submit_external_result(user, agent_id, sid)
    elif step == "interrupt":
        await http.driver.interrupt(user, agent_id, sid)


async def _reach(
    http: HttpStatusTarget, agent_id: str, sid: str, state: str, before: tuple[str, ...], step: str
) -> None:
    """Until the twin's messages show the step done (its turn ended, or parked as ``state`` says),
    at most --timeout: read through the messages, never the status (the other twin is not probed)."""

    async def done() -> bool:
        view = await http.snapshot(agent_id, sid)
        tail = tail_of(view)
        if step != "wait" and tail == before:
            return False
        waiting = waiting_states(view)
        if state == "idle":
            return not waiting and (
                not tail or (tail[-1].startswith("assistant:") and tail[-1].endswith(")"))
            )
        return state in waiting

    await settled(http, done)


async def _compare(http: HttpStatusTarget, pair: Pair, index: int) -> list[Divergence]:
    """The twins' views in shared terms, read again until they agree (a run that ends, or a lease
    released, a moment later in one twin), at most --timeout: what still differs then."""
    differ: dict[str, tuple[str, str]] = {}

    async def agree() -> bool:
        mine = shared(await http.snapshot(pair.agent_id, pair.probed))
        theirs = shared(await http.snapshot(pair.agent_id, pair.other))
        differ.clear()
        for path in mine.keys() | theirs.keys():
            if mine.get(path, "absent") != theirs.get(path, "absent"):
                differ[path] = (mine.get(path, "absent"), theirs.get(path, "absent"))
        return not differ

    await settled(http, agree)
    return [Divergence(index, "views", path, a, b) for path, (a, b) in sorted(differ.items())[:8]]


async def _probe(http: HttpStatusTarget, pair: Pair, index: int) -> list[Divergence]:
    """Every way of asking the status, to the probed twin only; then what the probes changed of
    it that did not change of the other meanwhile."""
    agent_id, sid = pair.agent_id, pair.probed
    before = {s: await http.snapshot(agent_id, s) for s in (pair.probed, pair.other)}
    plain = await http.status(sid, agent_id)
    etag = plain.response.headers.get("etag")
    if etag is not None:
        await http.status(sid, agent_id, headers={"If-None-Match": etag})
    path = f"/sessions/{segment(sid)}/status"
    await http.ask("HEAD", path, params={"agent_id": agent_id})
    await http.ask("GET", path + "/", params={"agent_id": agent_id})
    await http.status(sid, agent_id, headers={"Accept-Language": "de"})
    await http.status(sid, agent_id, user_id=http.other_user_id)
    after = {s: await http.snapshot(agent_id, s) for s in (pair.probed, pair.other)}
    mine = differing(before[pair.probed], after[pair.probed])
    theirs = differing(before[pair.other], after[pair.other])
    probed = shared(after[pair.probed])
    return [
        Divergence(index, "probes", p, probed.get(p, "absent"), "unchanged")
        for p in sorted(mine - theirs)[:8]
    ]

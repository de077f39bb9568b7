"""Twin sequences for `session_heartbeat`: the instruction-queue steps run on two sessions at once,
and the calls that must change nothing sent to one of them, over the server's whole surface.

A sequence is data (:class:`TwinStep`). Two sessions, the twins, are opened alike; every step is
applied to both (the same instruction texts enqueued for each, the same acknowledgements of what
each was delivered, the same reports), and after each the answers are compared: whether the call
was accepted, which of the enqueued texts it delivered and in which order, whether a cursor came,
and the state the calibrated probe reads back. A *nudge* goes to one twin only: a call the
contract says must change nothing of the session, drawn from what the server itself offers:

- ``rejected``: an invalid heartbeat that acknowledges everything the twin was delivered and
  writes a new value of the probe's field (MCP: servers validate tool inputs);
- ``retry``: the twin's last heartbeat again, same key and arguments (not applied twice);
- ``unlisted``: a tool name the server does not list, called with a heartbeat's arguments (it
  must be an error, and must run nothing);
- ``tool:NAME``: each other tool ``tools/list`` returns, called with arguments drawn from its
  ``inputSchema`` (its session-like fields name the twin): a tool that does something else must
  not report, acknowledge or consume the heartbeat's state;
- ``other-caller``: caller B's heartbeat for the twin's id (over HTTP with --other-header).

A ``wait`` step leaves both twins alone, each wait twice the last (the first WAIT_FIRST seconds),
never longer than --hold, then reads both: what the server changes on its own in time (expiry,
redelivery) must change both alike, and a nudge's effect that shows only later shows then.

After a nudge both twins are read (a plain heartbeat each, the probe's read): a difference between
them is what the nudge did. Everything else is applied alike, so the server's own policies
(redelivery, paging, a visibility timeout) show alike in both; and before a difference is blamed
the minimal sequence is run again with the roles swapped (the other twin, created second and
served second, gets the nudges): only a divergence both runs show is reported.

Judgement on data here (:func:`view_of`, :func:`compare`); the rest makes the calls.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import re
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
from hypothesis import given, seed
from hypothesis import strategies as st
from hypothesis.errors import Flaky

from conformance.core import progress
from conformance.core.outcomes import MissingInput, NotTestable, RunInterrupted
from conformance.core.profiles import BudgetSpent, Profile, hypothesis_settings
from conformance.targets.mcp.probe import ABSENT, CANDIDATES, StateProbe, same
from conformance.targets.mcp.target import TOOL, McpTarget, ToolReply, carries, new_key, new_session_id

if TYPE_CHECKING:
    from conformance.targets.mcp.reading import Instruction

__all__ = [
    "NUDGES",
    "Divergence",
    "TwinRun",
    "TwinStep",
    "View",
    "arguments_for",
    "compare",
    "run_twin_sequences",
    "surface",
    "view_of",
]

# What each kind of nudge is, for a finding (tool:NAME are the server's own tools).
NUDGES = {
    "rejected": "an invalid heartbeat (progressPercent 101) acknowledging everything delivered and writing a new value",
    "retry": "a retry of the twin's last heartbeat (same key, same arguments)",
    "unlisted": "a call of a tool name the server does not list, with a heartbeat's arguments",
    "tool": "a call of another tool the server lists, with arguments drawn from its inputSchema",
    "other-caller": "caller B's heartbeat for the twin's session id",
    "resources": "reads of every resource the server lists, and of each resource template filled with the twin's id",
    "prompts": "a get of every prompt the server lists, its arguments naming the twin",
}
UNLISTED_TOOL = "conformance_unlisted_tool"
MAX_PAGES = 20  # of one drain step (the sequences enqueue a handful)
MAX_SHOWN = 120
MAX_TOOLS = 8  # other tools exercised (a server may list hundreds)
RESTARTS = 8  # server restarts in one run of the sequences
RESTART_BUDGET = 60.0  # seconds of search a profile needs for its sequences to draw restarts
WAIT_FIRST = 0.5  # seconds of a sequence's first wait; each later one twice the last, up to --hold


class Divergence(AssertionError):
    """The twins' answers differ after a step; ``kind`` is the nudge sent last before it (None: the
    twins diverged without one, which is not blamed on a nudge)."""

    def __init__(self, message: str, kind: str | None) -> None:
        super().__init__(message)
        self.kind = kind


class _Found(BudgetSpent):
    """A divergence was seen: Hypothesis lets this through at once; the driver shrinks it itself."""


@dataclass
class TwinStep:
    op: str  # enqueue | heartbeat | ack-all | drain | report | restart | wait | nudge
    count: int = 0  # enqueue: how many; heartbeat: how many delivered ones to acknowledge
    kind: str = ""  # nudge: which (see NUDGES; tool:NAME)
    answer: str = ""
    frames: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TwinStep:
        return cls(op=data["op"], count=int(data.get("count", 0)), kind=str(data.get("kind", "")))

    def label(self) -> str:
        if self.op == "enqueue":
            return f"enqueue({self.count}) to both twins"
        if self.op == "heartbeat":
            return f"heartbeat(ack {self.count}) on both twins"
        if self.op == "nudge":
            return f"nudge({self.kind}) on one twin, then both read"
        if self.op == "restart":
            return "restart the server"
        if self.op == "wait":
            return "wait, then both read"
        return f"{self.op} on both twins"


@dataclass(frozen=True)
class View:
    """What one twin was answered by one step: accepted, the enqueued texts delivered (by their
    number in the sequence, in order), whether a cursor came, and the probe's value (ABSENT: not
    read by this step)."""

    accepted: bool
    delivered: tuple[int, ...]
    cursor: bool
    value: Any = ABSENT

    def describe(self) -> str:
        if not self.accepted:
            return "refused"
        texts = ", ".join(f"#{n + 1}" for n in self.delivered) or "none"
        shown = "" if self.value is ABSENT else f", the probe reads {_short(self.value)}"
        return f"instructions {texts}{', a cursor' if self.cursor else ''}{shown}"


def view_of(
    accepted: bool, items: list[Instruction], texts: list[str], cursor: bool, value: Any = ABSENT
) -> View:
    numbers = tuple(n for item in items for n, text in enumerate(texts) if carries(item, text))
    return View(accepted, numbers, cursor, value)


def compare(nudged: View, control: View) -> str | None:
    """How the nudged twin's view differs from its control's, or None."""
    differ = []
    if nudged.accepted != control.accepted:
        differ.append(f"accepted {nudged.accepted} / {control.accepted}")
    if nudged.delivered != control.delivered:
        differ.append(f"delivered {_numbers(nudged.delivered)} / {_numbers(control.delivered)}")
    if nudged.cursor != control.cursor:
        differ.append(f"a cursor {nudged.cursor} / {control.cursor}")
    if not same(nudged.value, control.value) and not (nudged.value is ABSENT and control.value is ABSENT):
        differ.append(f"the probe reads {_short(nudged.value)} / {_short(control.value)}")
    return "; ".join(differ) or None


def arguments_for(schema: Any, session_id: str) -> dict[str, Any]:
    """Arguments a tool's inputSchema describes: every property it names (the first of an enum,
    the minimum of a number, an empty list), a string property whose name speaks of a session
    set to ``session_id`` and one speaking of a key to a fresh key; bounded, never recursive."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return {}
    arguments: dict[str, Any] = {}
    for name, spec in list(properties.items())[:40]:
        value = _value_for(str(name), spec if isinstance(spec, dict) else {}, session_id)
        if value is not ABSENT:
            arguments[str(name)] = value
    return arguments


def _value_for(name: str, spec: dict[str, Any], session_id: str) -> Any:
    lowered = name.lower()
    if isinstance(spec.get("enum"), list) and spec["enum"]:
        return spec["enum"][0]
    if "const" in spec:
        return spec["const"]
    kind = spec.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "string" or (kind is None and "session" in lowered):
        if "session" in lowered:
            return session_id
        if "key" in lowered or "idempotency" in lowered:
            return new_key()
        return f"conformance-{uuid.uuid4().hex[:8]}"
    if kind in ("number", "integer"):
        low = spec.get("minimum", spec.get("exclusiveMinimum", 0))
        return int(low) + (1 if "exclusiveMinimum" in spec else 0) if isinstance(low, int | float) else 1
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if kind == "object":
        return {}
    return ABSENT


def surface(mcp: McpTarget, *, other_caller: bool) -> list[str]:
    """The nudges this server offers: the fixed kinds, and one per other tool it lists."""
    kinds = ["rejected", "retry", "unlisted"]
    names = [
        str(t.get("name")) for t in mcp.tools if isinstance(t.get("name"), str) and t.get("name") != TOOL
    ]
    kinds += [f"tool:{name}" for name in names[:MAX_TOOLS]]
    capabilities = mcp.era.capabilities if mcp.era is not None else None
    if isinstance(capabilities, dict):
        kinds += [k for k in ("resources", "prompts") if isinstance(capabilities.get(k), dict)]
    if other_caller:
        kinds.append("other-caller")
    return kinds


def fill_template(template: str, session_id: str) -> str:
    """A URI template (RFC 6570, simple expansions) with each variable set: the twin's id where
    its name speaks of a session, a marker elsewhere."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1).lstrip("+#./;?&").split(",")[0].split(":")[0].rstrip("*")
        return session_id if "session" in name.lower() else "conformance"

    return re.sub(r"\{([^}]{1,100})\}", value, template)


async def listed(mcp: McpTarget, method: str, key: str) -> list[dict[str, Any]]:
    """The first MAX_TOOLS items of a list the server answers (tools, resources, prompts), or none."""
    reply = await mcp.request(method, {})
    items = reply.result.get(key) if reply.ok and isinstance(reply.result, dict) else None
    return [i for i in items[:MAX_TOOLS] if isinstance(i, dict)] if isinstance(items, list) else []


@dataclass
class _Twin:
    sid: str
    seen: list[str] = field(default_factory=list)  # ids delivered and not acknowledged, in order
    last: dict[str, Any] = field(default_factory=dict)  # the last heartbeat's arguments (with key)


class TwinDriver:
    """Runs a step list on a pair of twins; ``nudged_first``: the nudged twin is created first and
    served first in every step (the swapped run has it second)."""

    def __init__(
        self,
        mcp: McpTarget,
        probe: StateProbe | None,
        settle: float,
        other: McpTarget | None,
        *,
        nudged_first: bool = True,
        restarts: list[int] | None = None,
        watched: list[float] | None = None,
    ) -> None:
        self.mcp = mcp
        self.restarts = restarts if restarts is not None else [0]  # left in the run (shared by its examples)
        self.watched = watched if watched is not None else [0.0]  # the longest any example waited, in all
        self.waits: list[float] = []
        self.probe = probe
        self.settle = settle
        self.other = other
        self.nudged_first = nudged_first
        self.nudged = _Twin(new_session_id())
        self.control = _Twin(new_session_id())
        self.texts: list[str] = []
        self.steps: list[TwinStep] = []
        self.last_nudge: str | None = None
        # Values of the probe's field, in turn (status has three: a value may come back, which a
        # report of it to both twins allows).
        self._values = itertools.cycle(CANDIDATES[probe.field](64) if probe is not None else [0])

    @property
    def order(self) -> tuple[_Twin, _Twin]:
        return (self.nudged, self.control) if self.nudged_first else (self.control, self.nudged)

    async def run_all(self, steps: list[TwinStep]) -> None:
        for twin in self.order:
            twin.last = {"status": "active", "idempotencyKey": new_key()}
            await self.mcp.ok_heartbeat(twin.sid, **twin.last)
        for step in [*steps, TwinStep("drain")]:  # every sequence ends by comparing whole queues
            await self.run(step)

    async def run(self, step: TwinStep) -> None:
        self.steps.append(step)
        mark = self.mcp.harness.transcript.mark()
        try:
            await getattr(self, f"_op_{step.op.replace('-', '_')}")(step)
        finally:
            step.frames = [e.to_json() for e in self.mcp.harness.transcript.since(mark)]

    def judge(self, step: TwinStep, views: dict[str, View]) -> None:
        nudged, control = views["nudged"], views["control"]
        step.answer = f"nudged twin: {nudged.describe()}; control: {control.describe()}"
        differ = compare(nudged, control)
        if differ is not None:
            after = f" (the last nudge: {self.last_nudge})" if self.last_nudge else ""
            raise Divergence(
                f"step {len(self.steps)} {step.label()}: the twins differ{after}: {differ} (nudged / control)",
                self.last_nudge,
            )

    # -- steps applied to both -----------------------------------------------------------------

    async def _op_enqueue(self, step: TwinStep) -> None:
        if not self.mcp.can_instruct:  # the nudges still show on the state the probe reads
            step.answer = "skipped: no operator hook (--instruct-cmd or --instruct-url)"
            return
        new = [
            f"conformance twin {len(self.texts) + n + 1} {uuid.uuid4().hex[:8]}" for n in range(step.count)
        ]
        for text in new:  # the same text for both twins: delivery is per session
            for twin in self.order:
                await self.mcp.instruct(twin.sid, text)
        self.texts += new
        if self.settle:
            await anyio.sleep(self.settle)
        step.answer = f"{len(self.texts)} enqueued so far"

    async def _op_restart(self, step: TwinStep) -> None:
        """The server restarted between two steps (same command and working directory), as the
        harness restarts it: the twins must still answer alike. Whether what it held survives is
        the server's (no sentence requires durability)."""
        if self.restarts[0] <= 0:
            step.answer = "skipped: no restart left in this run's budget (or the server cannot be restarted)"
            return
        self.restarts[0] -= 1
        await self.mcp.harness.restart_agent()
        await self.mcp.handshake()
        step.answer = "restarted"

    async def _op_wait(self, step: TwinStep) -> None:
        """Both twins left alone, each wait twice the last, at most --hold; then both read."""
        hold = self.mcp.harness.config.hold_seconds
        pause = round(min(hold, WAIT_FIRST * 2 ** len(self.waits)), 2)
        self.waits.append(pause)
        self.watched[0] = max(self.watched[0], sum(self.waits))
        await anyio.sleep(pause)
        await self._read_both(step)
        step.answer = f"waited {pause:g} s; then {step.answer}"

    async def _heartbeat(self, twin: _Twin, **fields: Any) -> View:
        return (await self._call(twin, **fields))[0]

    async def _call(self, twin: _Twin, **fields: Any) -> tuple[View, ToolReply]:
        twin.last = {"idempotencyKey": new_key(), **fields}
        reply = await self.mcp.heartbeat(twin.sid, **twin.last)
        return self._view(twin, reply, fields.get("acknowledgedInstructionIds", [])), reply

    def _view(self, twin: _Twin, reply: ToolReply, acked: list[str], value: Any = ABSENT) -> View:
        if not reply.succeeded:
            return View(False, (), False, value)
        twin.seen = [i for i in twin.seen if i not in acked]
        items = self.mcp.instructions(reply)
        for item in items:
            if item.id not in twin.seen and item.id not in acked:
                twin.seen.append(item.id)
        return view_of(True, items, self.texts, self.mcp.cursor(reply) is not None, value)

    async def _both(self, step: TwinStep, call: Any) -> None:
        views = {}
        for twin in self.order:
            views["nudged" if twin is self.nudged else "control"] = await call(twin)
        self.judge(step, views)

    async def _op_heartbeat(self, step: TwinStep) -> None:
        await self._both(step, lambda t: self._heartbeat(t, acknowledgedInstructionIds=t.seen[: step.count]))

    async def _op_ack_all(self, step: TwinStep) -> None:
        await self._both(step, lambda t: self._heartbeat(t, acknowledgedInstructionIds=list(t.seen)))

    async def _op_report(self, step: TwinStep) -> None:
        fields = self.probe.write(self._next_value()) if self.probe is not None else {"status": "waiting"}
        await self._both(step, lambda t: self._heartbeat(t, **fields))

    async def _op_drain(self, step: TwinStep) -> None:
        async def drain(twin: _Twin) -> View:
            view, reply = await self._call(twin)
            delivered, pages = list(view.delivered), 1
            cursor = self.mcp.cursor(reply) if view.accepted else None
            while cursor is not None and pages < MAX_PAGES:
                view, reply = await self._call(twin, instructionCursor=cursor)
                delivered += view.delivered
                cursor = self.mcp.cursor(reply) if view.accepted else None
                pages += 1
            return View(view.accepted, tuple(delivered), False)

        await self._both(step, drain)

    # -- the nudge, to one twin ----------------------------------------------------------------

    async def _op_nudge(self, step: TwinStep) -> None:
        twin, kind = self.nudged, step.kind
        self.last_nudge = f"{kind}: {NUDGES[kind.partition(':')[0]]}"
        if kind == "rejected":
            fields = {"progressPercent": 101, "acknowledgedInstructionIds": list(twin.seen)}
            if self.probe is not None and self.probe.field != "progressPercent":
                fields |= self.probe.write(self._next_value())
            reply = await self.mcp.heartbeat(twin.sid, **fields)
            what = "refused" if reply.rejected else f"accepted: {reply.describe()[:MAX_SHOWN]}"
        elif kind == "retry":
            reply = await self.mcp.heartbeat(twin.sid, **twin.last)
            what = "answered" if reply.succeeded else f"refused: {reply.describe()[:MAX_SHOWN]}"
        elif kind == "unlisted":
            arguments = {"sessionId": twin.sid, "idempotencyKey": new_key(), "status": "blocked"}
            arguments |= {"acknowledgedInstructionIds": list(twin.seen)}
            if self.probe is not None:
                arguments |= self.probe.write(self._next_value())
            reply = await self.mcp.call(arguments, name=UNLISTED_TOOL)
            what = "an error" if reply.rejected else "a result"
            if not reply.rejected:
                await self._read_both(step)
                raise Divergence(
                    f"step {len(self.steps)} {step.label()}: {UNLISTED_TOOL!r}, a tool name the server does not "
                    f"list, was answered with a result, not an error (the twins then read alike): "
                    f"{reply.describe()[:MAX_SHOWN]}",
                    self.last_nudge,
                )
        elif kind.startswith("tool:"):
            name = kind.partition(":")[2]
            tool = next((t for t in self.mcp.tools if t.get("name") == name), {})
            reply = await self.mcp.call(arguments_for(tool.get("inputSchema"), twin.sid), name=name)
            what = "an error" if reply.rejected else "a result"
        elif kind == "resources":
            uris = [
                str(r.get("uri"))
                for r in await listed(self.mcp, "resources/list", "resources")
                if r.get("uri")
            ]
            templates = await listed(self.mcp, "resources/templates/list", "resourceTemplates")
            uris += [
                fill_template(str(t.get("uriTemplate")), twin.sid) for t in templates if t.get("uriTemplate")
            ]
            read = [await self.mcp.request("resources/read", {"uri": uri}) for uri in uris]
            what = f"{len(read)} read ({sum(1 for r in read if r.ok)} answered)"
        elif kind == "prompts":
            got = []
            for prompt in await listed(self.mcp, "prompts/list", "prompts"):
                names = [str(a.get("name")) for a in prompt.get("arguments") or [] if isinstance(a, dict)]
                arguments = {n: twin.sid if "session" in n.lower() else "conformance" for n in names[:20]}
                got.append(
                    await self.mcp.request(
                        "prompts/get", {"name": prompt.get("name"), "arguments": arguments}
                    )
                )
            what = f"{len(got)} got ({sum(1 for r in got if r.ok)} answered)"
        else:  # other-caller
            assert self.other is not None
            reply = await self.other.heartbeat(
                twin.sid, status="blocked", acknowledgedInstructionIds=list(twin.seen)
            )
            what = "refused" if reply.rejected else "accepted"
        await self._read_both(step)
        step.answer = f"{kind} {what}; then {step.answer}"

    async def _read_both(self, step: TwinStep) -> None:
        async def read(twin: _Twin) -> View:
            if self.probe is None:
                return await self._heartbeat(twin)
            twin.last = {"idempotencyKey": new_key()}
            reply = await self.mcp.heartbeat(twin.sid, **twin.last)
            value = self.probe.value_in(reply.data) if reply.succeeded else ABSENT
            return self._view(twin, reply, [], value)

        await self._both(step, read)

    def _next_value(self) -> Any:
        return next(self._values)


@dataclass
class TwinRun:
    profile: str
    seed: int
    examples: int
    failure: str | None
    steps: list[TwinStep]
    kind: str | None = None  # the nudge blamed
    swapped: str | None = None  # what the run with the roles swapped showed
    watched: float = 0.0  # the longest an example waited in all (its wait steps), seconds


def _strategy(kinds: list[str], restarts: bool) -> st.SearchStrategy[TwinStep]:
    ops = [
        st.builds(TwinStep, op=st.just("enqueue"), count=st.integers(1, 3)),
        st.builds(TwinStep, op=st.just("heartbeat"), count=st.integers(0, 2)),
        st.builds(TwinStep, op=st.just("ack-all")),
        st.builds(TwinStep, op=st.just("drain")),
        st.builds(TwinStep, op=st.just("report")),
        st.builds(TwinStep, op=st.just("nudge"), kind=st.sampled_from(kinds)),
    ]
    if restarts:
        ops.append(st.builds(TwinStep, op=st.just("restart")))
    ops.append(st.builds(TwinStep, op=st.just("wait")))
    return st.one_of(ops)


def steered(kinds: list[str]) -> list[list[TwinStep]]:
    """Each nudge once, with instructions delivered and a value reported before it: run first in
    every run, so each part of the surface is tried within any budget."""
    return [
        [TwinStep("enqueue", 2), TwinStep("report"), TwinStep("heartbeat", 0), TwinStep("nudge", kind=k)]
        for k in kinds
    ]


def run_once(
    mcp: McpTarget,
    steps: list[TwinStep],
    probe: StateProbe | None,
    settle: float,
    other: McpTarget | None,
    *,
    nudged_first: bool = True,
    restarts: list[int] | None = None,
    watched: list[float] | None = None,
) -> tuple[Divergence | None, list[TwinStep]]:
    driver = TwinDriver(
        mcp, probe, settle, other, nudged_first=nudged_first, restarts=restarts, watched=watched
    )
    try:
        anyio.from_thread.run(driver.run_all, [TwinStep.from_json(s.to_json()) for s in steps])
    except Divergence as found:
        return found, driver.steps
    except (MissingInput, NotTestable):
        return None, driver.steps
    return None, driver.steps


def run_twin_sequences(
    mcp: McpTarget,
    profile: Profile,
    probe: StateProbe | None,
    settle: float,
    other: McpTarget | None,
    *,
    seed_value: int | None,
) -> TwinRun:
    """Run Hypothesis over twin step lists (from a worker thread: steps run on the runtime's loop);
    a divergence is shrunk by removing steps, then confirmed with the roles swapped."""
    chosen = seed_value if seed_value is not None else profile.fixed_seed
    if chosen is None:
        chosen = random.SystemRandom().randrange(2**32)
    kinds = surface(mcp, other_caller=other is not None)
    examples, started, found, watched = [0], time.monotonic(), {}, [0.0]
    # A restart costs a process start (seconds for a server on an SDK): drawn only by the profiles
    # that search for minutes (thorough, campaign rounds), at most RESTARTS in a run; none where the
    # server cannot be restarted or caller B's connection would not follow it to its new address.
    can_restart = mcp.harness.config.restartable and other is None
    restarts = [RESTARTS if can_restart and profile.budget >= RESTART_BUDGET else 0]
    budget = profile.budget / 2

    def sequence(steps: list[TwinStep]) -> None:
        if mcp.harness.closing:
            raise RunInterrupted
        if time.monotonic() - started > budget:
            if profile.stop_at_budget:
                raise BudgetSpent
            return
        examples[0] += 1
        progress.example()
        failure, ran = run_once(mcp, steps, probe, settle, other, restarts=restarts, watched=watched)
        if failure is not None and failure.kind is not None:
            found["steps"] = steps[: len(ran)]
            raise _Found

    # Each nudge once, whatever the budget (a slow server spends it on these alone): the surface
    # is tried whole; then generated sequences while the budget lasts.
    for steps in steered(kinds):
        if mcp.harness.closing:
            raise RunInterrupted
        examples[0] += 1
        progress.example()
        failure, ran = run_once(mcp, steps, probe, settle, other, restarts=restarts)
        if failure is not None and failure.kind is not None:
            found["steps"] = steps[: len(ran)]
            break
    if "steps" not in found:
        test = given(
            st.lists(_strategy(kinds, restarts[0] > 0), min_size=1, max_size=max(4, profile.steps // 5))
        )(sequence)
        with contextlib.suppress(BudgetSpent, Flaky):
            seed(chosen)(hypothesis_settings(profile, max(2, profile.max_examples // 60), None)(test))()
    if "steps" not in found:
        return TwinRun(profile.name, chosen, examples[0], None, [], watched=watched[0])
    failure, steps, ran = _minimize(mcp, found["steps"], probe, settle, other, can_restart)
    if failure is None or failure.kind is None:
        return TwinRun(profile.name, chosen, examples[0], None, [], watched=watched[0])
    swapped, _ = run_once(
        mcp, steps, probe, settle, other, nudged_first=False, restarts=_restarts(steps, can_restart)
    )
    if swapped is None or swapped.kind is None:
        return TwinRun(
            profile.name,
            chosen,
            examples[0],
            None,
            [],
            swapped="no divergence with the roles swapped",
            watched=watched[0],
        )
    return TwinRun(
        profile.name, chosen, examples[0], str(failure), ran, failure.kind, str(swapped), watched[0]
    )


def _minimize(
    mcp: McpTarget,
    steps: list[TwinStep],
    probe: StateProbe | None,
    settle: float,
    other: McpTarget | None,
    can_restart: bool,
) -> tuple[Divergence | None, list[TwinStep], list[TwinStep]]:
    """Remove steps one at a time while a nudge is still blamed for a divergence: the failure, the
    steps left, and the steps of their last run (with answers and frames)."""
    failure, ran = run_once(mcp, steps, probe, settle, other, restarts=_restarts(steps, can_restart))
    if failure is None or failure.kind is None:
        return None, steps, ran
    current, i = list(steps), 0
    while i < len(current):
        trial = current[:i] + current[i + 1 :]
        again, trial_ran = run_once(mcp, trial, probe, settle, other, restarts=_restarts(trial, can_restart))
        if again is not None and again.kind is not None:
            failure, current, ran = again, trial, trial_ran
        else:
            i += 1
    return failure, current, ran


def _restarts(steps: list[TwinStep], can_restart: bool) -> list[int]:
    """A replay's restart budget: each restart step it has (none where the server cannot restart)."""
    return [sum(1 for s in steps if s.op == "restart") if can_restart else 0]


def _numbers(numbers: tuple[int, ...]) -> str:
    return "[" + ", ".join(f"#{n + 1}" for n in numbers) + "]"


def _short(value: Any) -> str:
    if value is ABSENT:
        return "nothing"
    text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"

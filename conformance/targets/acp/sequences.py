"""The sequence driver: runs lifecycle and status steps on one agent and checks each answer.

A step is data (operation, symbolic session, flags), so the same steps run from Hypothesis,
from a replay file, or by hand. After every step the driver checks the agent against the
:class:`SessionModel`: each status answer is one the spec allows, unknown ids get the -32002
shape, status brings no notification, session/list shows no duplicate, no stranger and no
entry changed by status alone, and every frame's envelope is sound. When a session the model
holds turns out evicted right after status calls, the driver runs a control experiment
(the same operations without the status call) before blaming status.

Two steps overlap calls: a *burst* sends several status calls for one session at once (all in
flight before the first answer), and a *race* sends status calls for a session on both sides of
a lifecycle call on it (close, resume, prompt), all in flight together. A burst's answers are
each judged as a lone call's would be; a race's may be what the session was before the lifecycle
call or after it (the agent may handle them in any order), and the model moves as the lifecycle
call's own answer says. What status leaves behind is judged by the steps after.

The rest of the surface the agent offers is in the alphabet too, discovered from it (see
:func:`discover`): a session mode and a config option set (`session/set_mode`,
`session/set_config_option`, with the values the agent's session/new reported), `session/delete`,
and the extension methods `agentCapabilities._meta` names. Each is applied to both twins; its
answers are compared, and a resume or load reports back whether the settings set are still so.
"""

from __future__ import annotations

import json
import os
import random
import string
import uuid
import weakref
from dataclasses import asdict, dataclass, field
from typing import Any, NoReturn

import anyio

from conformance.core import progress, revisions
from conformance.core.outcomes import NoTurn, shorten
from conformance.targets.acp.controls import is_extension_method
from conformance.targets.acp.model import ACTIVE, INACTIVE, UNKNOWN, SessionModel
from conformance.targets.acp.target import AcpTarget, session_of
from conformance.transport.peer import Notification, Reply

__all__ = [
    "REFINES",
    "RULES",
    "SURFACE",
    "Driver",
    "SequenceFailure",
    "SequencePrerequisite",
    "Step",
    "Surface",
    "discover",
]

NOT_FOUND = -32002
# session/update kinds that carry a session's history: status attaching or loading it replays them.
HISTORY_KINDS = frozenset(
    {
        "user_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
    }
)

LONG_QUIET = 1.0  # seconds of quiet before a status that brought notifications twice is asked a third time


def update_kind(note: Notification) -> str | None:
    update = note.params.get("update") if isinstance(note.params, dict) else None
    kind = update.get("sessionUpdate") if isinstance(update, dict) else None
    return kind if isinstance(kind, str) else None


# Words a long prompt is made of: ordinary prose, so an agent stores and echoes it as it would a
# user's text (compression, chunking and indexes see what they see in use).
_PROSE = (
    "the build failed on the second step because the cache held an older copy of the schema and "
    "nobody noticed until the report came back with every status marked as unknown"
)


def prompt_text(step: int, kilobytes: int) -> str:
    """The text of the sequence's prompt at ``step``: short, or ``kilobytes`` KB of prose (a
    session's history grows large over ordinary turns: what is kept by size shows only then)."""
    head = f"step {step}"
    if not kilobytes:
        return head
    size = kilobytes * 1024
    return (f"{head}: " + " ".join([_PROSE] * (size // len(_PROSE) + 1)))[:size]


class SequenceFailure(AssertionError):
    """A sequence broke a requirement; the message names the step and what went wrong, ``rule``
    which of the model's rules found it (each maps to the spec sentence it checks)."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


class SequencePrerequisite(SequenceFailure):
    """A lifecycle method the agent advertises failed, so the sequence cannot go on: the agent made
    the check impossible, a failure of the case (NotTestable)."""


# The model's rules: each failure names one, and each revision maps "sequence.status.model-based#rule"
# to the sentence the rule checks.
RULES = {
    "no-notification": "no notification arrives during session/status (it attached or replayed)",
    "unknown-id": "a never-created id is never reported as a session in memory",
    "unknown-error-code": "an unknown id gets error -32002, no other code",
    "unknown-error-data": "the -32002 error carries data.sessionId, the id asked for",
    "result-shape": "a status result carries a string status",
    "one-revision": "every status word is of the revision checked",
    "not-active-after-release": "a session the client let go (closed, or the agent restarted) is not active",
    "status-loads": "a session status called inactive, with only status calls since, is still not in memory",
    "may-inactive-bound": "an unknown id status called inactive (the MAY path) fails to resume with -32002",
    "unknown-not-created": "status does not create a never-created id (it does not resume, unlike a fresh one)",
    "inactive-resumable": "a session status reports inactive can be resumed",
    "unknown-not-resumable": "a session status reports unknown (-32002) cannot be resumed",
    "list-no-duplicate": "session/list never lists a session twice",
    "list-no-stranger": "session/list never shows an id that status was only asked about",
    "list-unchanged": "a list entry only status calls touched does not change",
    "no-eviction": "status does not evict a session (confirmed on two fresh sessions)",
    "fork-known": "a session session/fork just created is known to status (never -32002)",
    "unknown-not-found": (
        "a session status reports unknown (-32002) is not found by session/archive, session/unarchive or "
        "session/set_title either (each answers -32002 for a session that does not exist)"
    ),
    "twins-differ": (
        "twin sessions treated alike but for status calls about one answer a lifecycle call or show in "
        "session/list alike (a difference is blamed on status only when it follows the asked twin with the "
        "roles swapped, and comes again)"
    ),
}


# A rule that names a finer cause of another's failure: shrinking may go from one to the other.
REFINES = {"status-loads": "not-active-after-release"}
# The lifecycle calls a race step sends status calls around.
RACES = ("close", "reopen", "prompt")
# The steps applied to both twins of a pair (status, bursts and races' status calls go to one only),
# and those whose answers are compared between the twins.
# The surface steps: what the agent offers beside the lifecycle (see Surface).
SURFACE = frozenset({"mode", "config", "delete", "ext", "fork", "archive", "unarchive", "title"})
SURFACE_METHODS = {
    "archive": "session/archive",
    "unarchive": "session/unarchive",
    "title": "session/set_title",
}
# Surface calls whose methods answer -32002 for a session that does not exist (the SDK 2.4.0
# schema says so of each): one that succeeds contradicts a -32002 status gave just before.
FINDS_SESSIONS = frozenset({"archive", "unarchive", "title"})
TWINNED = frozenset({"prompt", "cancel", "close", "reopen", "load", "race", "remote"}) | SURFACE
COMPARED = frozenset({"prompt", "close", "reopen", "load", "remote"}) | SURFACE
# Confirming replays of one pair's difference that may end early (each replays every step so far)
# before the pair is compared no more in the example.
CUT_SHORT = 2
# Bounds on what discovery takes from the agent's own answers (hostile data).
MAX_OFFERED = 8
MAX_NAME = 100
# session/list pages followed at most (nextCursor), and the sessions read from each.
MAX_PAGES = 10
MAX_ENTRIES = 1000
# A second connection to the agent, per target, kept for the run's sequences (opened once: a
# connection costs a handshake; a restart drops it).
_SECOND: weakref.WeakKeyDictionary[AcpTarget, AcpTarget] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Surface:
    """The optional surface an agent offers beside the lifecycle, as it said so itself: the mode
    ids and config option values its session/new reported, whether it advertises
    `sessionCapabilities.delete`, and the extension methods (`_` names) `agentCapabilities._meta`
    names."""

    modes: tuple[str, ...] = ()
    configs: tuple[str, ...] = ()  # "configId=value", for select options
    delete: bool = False
    extensions: tuple[str, ...] = ()
    # The unstable session methods of the SDK 2.4.0 schema, as `sessionCapabilities` advertises them.
    fork: bool = False
    archive: bool = False  # session/archive and session/unarchive
    title: bool = False  # session/set_title

    def describe(self) -> str:
        parts = [
            *([f"modes {', '.join(self.modes)}"] if self.modes else []),
            *([f"config {', '.join(self.configs)}"] if self.configs else []),
            *(["session/delete"] if self.delete else []),
            *(["session/fork"] if self.fork else []),
            *(["session/archive and unarchive"] if self.archive else []),
            *(["session/set_title"] if self.title else []),
            *([f"extensions {', '.join(self.extensions)}"] if self.extensions else []),
        ]
        return "; ".join(parts) or "no optional method"


_SURFACES: weakref.WeakKeyDictionary[AcpTarget, Surface] = weakref.WeakKeyDictionary()


def _name(value: Any) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= MAX_NAME and value.isprintable() else None


def surface_of(created: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The mode ids and config values (``configId=value``) a session/new (load, resume) result
    offers, bounded."""
    result: dict[str, Any] = created if isinstance(created, dict) else {}
    modes_state = result.get("modes")
    available = modes_state.get("availableModes") if isinstance(modes_state, dict) else None
    offered = available[:MAX_OFFERED] if isinstance(available, list) else []
    modes = [_name(m.get("id")) for m in offered if isinstance(m, dict)]
    configs: list[str] = []
    options = result.get("configOptions")
    for option in (options if isinstance(options, list) else [])[:MAX_OFFERED]:
        config_id = _name(option.get("id")) if isinstance(option, dict) else None
        values = option.get("options") if isinstance(option, dict) else None
        if (
            config_id is None
            or "=" in config_id
            or option.get("type") != "select"
            or not isinstance(values, list)
        ):
            continue
        for value in values[:MAX_OFFERED]:
            picked = _name(value.get("value")) if isinstance(value, dict) else None
            if picked is not None:
                configs.append(f"{config_id}={picked}")
    return tuple(m for m in modes if m is not None), tuple(configs[:MAX_OFFERED])


async def discover(target: AcpTarget) -> Surface:
    """What the agent offers beside the lifecycle, once per target: one session/new shows its
    modes and config options (the agent reports them there), `initialize` its delete and its
    extension methods."""
    found = _SURFACES.get(target)
    if found is not None:
        return found
    reply = await target.call("session/new", {"cwd": target.cwd, "mcpServers": []})
    modes, configs = surface_of(reply.result if reply.ok else None)
    meta = target.agent_capabilities.get("_meta")
    names = [_name(k) for k in (meta if isinstance(meta, dict) else {})]
    extensions = tuple(n for n in names if n is not None and n.startswith("_"))[:MAX_OFFERED]
    found = _SURFACES[target] = Surface(
        modes,
        configs,
        target.advertises("delete"),
        extensions,
        fork=target.advertises("fork"),
        archive=target.advertises("archive"),
        title=target.advertises("title"),
    )
    return found


@dataclass
class Step:
    # new | unknown | status | burst | race | prompt | cancel | close | reopen | load | remote | list | pressure
    # | wait | restart | mode | config | delete | ext (during: the mode id, configId=value, extension method)
    op: str
    ref: str | None = None
    meta: bool = False
    answer: str = ""  # what the agent answered, in short
    frames: list[dict[str, Any]] = field(default_factory=list)
    # burst: status calls in flight at once; race: on each side; pressure: sessions; wait: tenths of
    # a second; prompt: kilobytes of text (0: a short one)
    times: int = 0
    during: str = ""  # race: the lifecycle call the status calls overlap (one of RACES)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for extra in ("times", "during"):  # plain steps read as they always did
            if not data[extra]:
                del data[extra]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Step:
        return cls(
            op=data["op"],
            ref=data.get("ref"),
            meta=bool(data.get("meta", False)),
            times=int(data.get("times") or 0),
            during=str(data.get("during") or ""),
        )

    def label(self) -> str:
        args = [self.ref] if self.ref else []
        if self.op == "burst":
            args.append(f"{self.times} at once")
        if self.op == "pressure":
            args.append(f"{self.times} sessions")
        if self.op == "wait":
            args.append(f"{self.times / 10:g} s")
        if self.op == "prompt" and self.times:
            args.append(f"{self.times} KB of text")
        if self.op == "race":
            args.append(f"{self.during}, {self.times} status calls on each side")
        if self.op in SURFACE and self.during:
            args.append(self.during)
        if self.meta:
            args.append("_meta")
        return f"{self.op}({', '.join(args)})"


class Driver:
    """``twins``: every session (never-created ids too) has a twin the lifecycle steps reach as well
    and status never does; ``swapped``: the roles of each pair swapped (the twin created first is
    asked in pairs where it would otherwise be the one created second); ``confirming``: a replay
    that confirms a difference between twins, which records what the twins answered and compares
    nothing."""

    def __init__(
        self,
        target: AcpTarget,
        *,
        dry: bool = False,
        twins: bool = True,
        swapped: bool = False,
        confirming: bool = False,
    ) -> None:
        self.t = target
        self.dry = dry
        self.twins_on = twins and not dry
        self.swapped = swapped
        self.confirming = confirming
        self.twin: dict[str, str] = {}  # ref -> its twin's id (the twin status is never asked about)
        self.asked_first: dict[str, bool] = {}  # ref -> whether the asked twin was created first
        # (step number, ref) -> (the asked twin's answer, the other's), for a confirming replay to read
        self.twin_views: dict[tuple[int, str], tuple[str, str]] = {}
        self.parted: set[str] = set()  # pairs whose difference their places explain: compared no more
        # ref -> the confirming replays of its pair's difference that ended early (judged nothing)
        self.cut_short: dict[str, int] = {}
        self._sample: str | None = None  # a session made only to learn the form of the agent's ids
        self.model = SessionModel(may_inactive_for_unknown=revisions.current().may_inactive_for_unknown)
        self.ids: dict[str, str] = {}
        self.steps: list[Step] = []
        self.list_snapshot: dict[str, Any] = {}
        self.list_shows_ours = False  # session/list has shown a session of this sequence's
        self.list_mark = target.peer.transcript.mark() if not dry else 0
        self._statused_while_held: set[str] = set()
        self._last_status_meta: dict[str, bool] = {}
        self._burst_while_held: dict[str, int] = {}  # the last status step on it was a burst of so many
        self._counter = {"s": 0, "u": 0}
        # sid -> the settings set on it ("mode" or a configId -> the value), what a resume, a load
        # or the set call's own answer must report back
        self.settings_set: dict[str, dict[str, str]] = {}
        self._reopened: dict[str, Any] = {}  # sid -> the result of the last resume or load of it
        self.forks: dict[str, str] = {}  # sid -> the id of the last fork session/fork made of it
        self._lone_statuses = 0  # lone status steps so far
        self._first_status_id: int | None = None  # the JSON-RPC id of the first one answered
        self.archived: set[str] = set()  # refs session/archive archived and nothing unarchived since
        # sid -> the settings its session/new reported (its defaults, which may differ between
        # sessions), and sid -> its pair's other sid
        self.defaults: dict[str, dict[str, Any]] = {}
        self.partner: dict[str, str] = {}
        # Each sequence works in a directory of its own, so session/list shows only its sessions
        # however many earlier sequences left behind on the same agent.
        self.cwd = os.path.join(target.cwd, ".sequences", uuid.uuid4().hex[:12])
        if not dry:
            os.makedirs(self.cwd, exist_ok=True)

    def count(self, kind: str) -> int:
        return self._counter[kind]

    def next_ref(self, kind: str) -> str:
        ref = f"{kind}{self._counter[kind]}"
        self._counter[kind] += 1
        return ref

    # -- running steps -------------------------------------------------------------------------

    async def run(self, step: Step) -> None:
        self.steps.append(step)
        transcript = self.t.peer.transcript
        mark = transcript.mark()
        problems_before = len(self.t.peer.problems)
        before = self.model_state(step.ref)
        try:
            if self.twins_on and step.op in TWINNED and step.ref in self.twin:
                await self._twinned(step)
            else:
                await getattr(self, f"_op_{step.op}")(step)
            progress.transition("acp", before, step.op, self.model_state(step.ref))
            new_problems = [p for p in self.t.peer.problems[problems_before:] if not p.noise]
            if new_problems:
                failure = SequenceFailure(
                    f"step {len(self.steps)} {step.label()}: JSON-RPC envelope broken: {new_problems[0].problem}",
                    "envelope",
                )
                raise failure
        finally:
            step.frames = [e.to_json() for e in self.t.harness.transcript.since(mark)]

    def model_state(self, ref: str | None) -> str:
        """The model's state of the step's session, for the campaign's coverage."""
        if ref is None:
            return "agent"
        session = self.model.sessions.get(ref)
        if session is None:
            return "none"
        if not session.created:
            return "never-created"
        return "gone" if session.gone else "held" if session.held else "let-go"

    async def run_all(self, steps: list[Step], stop: Any = None) -> None:
        """Run ``steps`` in order; ``stop()`` (if given) is asked before each: True ends the run there."""
        for step in steps:
            if stop is not None and stop():
                return
            if step.ref is not None and step.op not in ("new", "unknown") and step.ref not in self.ids:
                raise ValueError(f"step {step.label()} uses {step.ref} before a step creates it")
            await self.run(step)

    def fail(self, step: Step, message: str, rule: str) -> NoReturn:
        assert rule in RULES, rule
        raise SequenceFailure(f"step {len(self.steps)} {step.label()}: {message}", rule)

    def cannot(self, step: Step, message: str) -> NoReturn:
        raise SequencePrerequisite(f"step {len(self.steps)} {step.label()}: {message}", "prerequisite")

    def sid(self, ref: str) -> str:
        return self.ids[ref]

    # -- operations ----------------------------------------------------------------------------

    def _asked_first(self, ref: str) -> bool:
        """Pairs alternate: the asked twin is created first in s0, s2… and second in s1, s3…; a
        swapped driver (the confirmation) turns every pair round."""
        return (int(ref[1:] or 0) % 2 == 0) != self.swapped

    async def _create(self, step: Step) -> str:
        # Sessions s0, s2… (and their twins) are created with the optional parameters of
        # session/new (an MCP server the suite provides…; the defaults where the agent refuses them).
        varied = step.op == "new" and step.ref is not None and int(step.ref[1:] or 0) % 2 == 0
        reply = await self.t.create(self.cwd, varied=varied)
        sid = reply.result.get("sessionId") if reply.ok and isinstance(reply.result, dict) else None
        if not isinstance(sid, str):
            self.cannot(step, f"session/new did not create a session: {reply.describe()}")
        self.defaults[sid] = _reported_settings(reply)
        return sid

    async def _op_new(self, step: Step) -> None:
        assert step.ref is not None
        if self.twins_on:
            first, second = await self._create(step), await self._create(step)
            self.asked_first[step.ref] = self._asked_first(step.ref)
            sid, self.twin[step.ref] = (first, second) if self.asked_first[step.ref] else (second, first)
            self.partner[first], self.partner[second] = second, first
        else:
            sid = await self._create(step)
        self.ids[step.ref] = sid
        self.model.add(step.ref, created=True).ops.append("new")
        step.answer = "created" + (" (and its twin)" if self.twins_on else "")

    async def _own_id(self, step: Step) -> str:
        """An id the agent made in this sequence (one session made for it when there is none yet):
        what never-created ids are mutated from."""
        made = [self.ids[r] for r, s in self.model.sessions.items() if s.created and r in self.ids]
        if not made:
            self._sample = self._sample or await self._create(step)
            return self._sample
        return made[0]

    async def _op_unknown(self, step: Step) -> None:
        """A never-created id in the agent's own format (its prefix, length and alphabet, from an id
        it made): an agent that answers for any id of its format without a lookup shows here."""
        assert step.ref is not None
        own = await self._own_id(step)
        self.ids[step.ref] = mutated_id(own)
        if self.twins_on:
            self.twin[step.ref] = mutated_id(own)
            self.asked_first[step.ref] = self._asked_first(step.ref)
        self.model.add(step.ref, created=False)
        step.answer = "(a never-created id)"

    # -- twins: every lifecycle step on both, status on one, their answers compared --------------

    async def _twinned(self, step: Step) -> None:
        """The step on the asked twin (judged against the model as ever) and the same lifecycle
        call on its twin, in the order the pair was created; then, for the calls whose answers are
        compared, whether the twins answered alike."""
        ref = step.ref
        assert ref is not None
        twin_sid = self.twin[ref]
        first = self.asked_first[ref]
        other: str | None = None
        if not first:
            other = await self._twin_call(step, twin_sid)
        mark = self.t.peer.transcript.mark()
        await getattr(self, f"_op_{step.op}")(step)
        mine = self._asked_view(step, mark)
        if first:
            other = await self._twin_call(step, twin_sid)
        if step.op in COMPARED and mine is not None and other is not None:
            await self._compare(step, ref, step.op, mine, other)

    async def _twin_call(self, step: Step, sid: str) -> str | None:
        """The step's lifecycle call on the twin: what it answered, as :meth:`_asked_view` puts the
        asked twin's (None: not sent)."""
        op = step.during if step.op == "race" else step.op
        mark = self.t.peer.transcript.mark()
        if op == "remote":  # connection B prompts the twin it never asked about
            try:
                reply = await (await self._second()).prompt(sid, f"step {len(self.steps)} from B")
            except NoTurn:
                return None
        elif op == "prompt":
            try:
                reply = await self.t.prompt(sid, prompt_text(len(self.steps), step.times))
            except NoTurn:
                return None
        elif op == "cancel":
            await self.t.peer.notify("session/cancel", {"sessionId": sid})
            return "(notification)"
        elif op == "close":
            reply = await self.t.call("session/close", {"sessionId": sid})
        elif op in SURFACE:
            return await self._surface_call(op, sid, step.during)
        else:
            reply = await self._reopen_call(op, sid)
        answer = "ok" if reply.ok else f"error {reply.code}"
        if op in ("reopen", "load"):
            answer += self._replayed(sid, mark) + self._settings_view(sid, reply)
        return answer

    def _asked_view(self, step: Step, mark: int) -> str | None:
        if step.answer.startswith("(not sent"):
            return None
        answer = step.answer.split(" (")[0]
        if step.op in ("reopen", "load"):
            sid = self.sid(step.ref or "")
            answer += self._replayed(sid, mark) + self._settings_view(sid, self._reopened.get(sid))
        return answer

    def _replayed(self, sid: str, mark: int) -> str:
        """The history a resume or load replayed about the session: how many updates of each kind."""
        kinds: dict[str, int] = {}
        for note in self.t.peer.notifications_since(mark):
            kind = update_kind(note)
            if session_of(note.params) == sid and kind in HISTORY_KINDS:
                kinds[kind] = kinds.get(kind, 0) + 1
        return "".join(f", {n} {k}" for k, n in sorted(kinds.items()))

    async def _compare(self, step: Step, ref: str, what: str, mine: str, other: str) -> None:
        """The twins answered ``mine`` (asked) and ``other``. A difference is the pair's places' doing
        (an eviction order, a limit on the whole agent) unless it follows the asked twin when the
        sequence is replayed with every pair's roles swapped, and comes again replayed as it was."""
        self.twin_views[(len(self.steps), ref)] = (mine, other)
        if mine == other or self.confirming or ref in self.parted:
            return
        seen = (mine, other)
        swapped = await self._replay_views(ref, swapped=not self.swapped)
        if isinstance(swapped, str):
            self._ended_early(step, ref, other, "with the roles swapped", swapped)
            return
        if swapped != seen:
            self.parted.add(ref)
            step.answer += (
                f" (its twin: {other}; with the roles swapped the asked twin: "
                f"{swapped[0] if swapped else 'not replayed'}: the pair's places, not status)"
            )
            return
        again = await self._replay_views(ref, swapped=self.swapped)
        if isinstance(again, str):
            self._ended_early(step, ref, other, "as it was", again)
            return
        if again != seen:
            self.parted.add(ref)
            step.answer += f" (its twin: {other}; not so again when replayed: not laid at status's door)"
            return
        self.fail(
            step,
            f"{what} answered {mine} for {ref} and {other} for its twin, treated alike but for the status calls "
            f"about {ref}; replayed with the roles swapped, the asked twin again answered {mine} and the other "
            f"{other}: the status calls made the difference",
            "twins-differ",
        )

    def _ended_early(self, step: Step, ref: str, other: str, how: str, why: str) -> None:
        """A confirming replay that did not reach the step says nothing of the difference: not
        counted as one in which it did not come again. The pair is compared again at a later step,
        and left alone once CUT_SHORT replays of it ended early."""
        self.cut_short[ref] = self.cut_short.get(ref, 0) + 1
        if self.cut_short[ref] >= CUT_SHORT:
            self.parted.add(ref)
        step.answer += f" (its twin: {other}; the replay {how} ended early, not judged: {shorten(why, 240)})"

    async def _replay_views(self, ref: str, *, swapped: bool) -> tuple[str, str] | str | None:
        """The steps so far replayed on fresh sessions (``swapped``: each pair's roles swapped): what
        the twins of ``ref`` answered at the last one (None: the replay ran, and they were not
        compared there); why the replay ended before it, where it did (another rule broken on the
        way, a lifecycle call that failed, a session lost, no turn to be had)."""
        replay = Driver(self.t, swapped=swapped, confirming=True)
        steps = [Step.from_json(s.to_json()) for s in self.steps]
        try:
            await replay.run_all(steps)
        except SequencePrerequisite as failure:
            return f"a lifecycle call failed: {failure}"
        except SequenceFailure as failure:
            return f"it broke {failure.rule}: {failure}"
        except (ValueError, NoTurn) as exc:
            return str(exc) if isinstance(exc, ValueError) else exc.short
        return replay.twin_views.get((len(steps), ref))

    async def _op_status(self, step: Step) -> None:
        ref = step.ref
        assert ref is not None
        params: dict[str, Any] = {"sessionId": self.sid(ref)}
        if step.meta:
            params["_meta"] = {"conformance.example/probe": True}
        allowed = self.model.allowed(ref)
        mark = self.t.peer.transcript.mark()
        # Every other lone status call of the sequence goes out with the id of its first: a client
        # may use an answered id again, and an answer kept by request id must not come back.
        self._lone_statuses += 1
        reuse = self._first_status_id if self._lone_statuses % 2 == 0 else None
        reply = await self.t.call("session/status", params, reuse_id=reuse)
        if (
            self._first_status_id is None
            and (reply.ok or reply.code == NOT_FOUND)
            and isinstance(reply.id, int)
        ):
            self._first_status_id = reply.id
        notes = self._charged(self.t.peer.notifications_since(mark), params["sessionId"])
        aside = await self._judge_notifications(step, params, notes) if notes else ""
        answer = self._status_answer(step, reply)
        step.answer = _short(answer) + aside
        await self._judge_answer(step, ref, answer, allowed)
        session = self.model.sessions[ref]
        if session.created and session.held:
            self._statused_while_held.add(ref)
            self._last_status_meta[ref] = step.meta
            self._burst_while_held.pop(ref, None)
            if answer != ACTIVE:
                await self._evicted(step, ref)
        self.model.claimed(ref, answer)

    async def _judge_answer(
        self, step: Step, ref: str, answer: str, allowed: set[str], *, called_inactive: bool = False
    ) -> None:
        """``called_inactive``: another status call of the same step called the session inactive
        (a burst's calls are all status calls, so nothing but status calls came since)."""
        session = self.model.sessions[ref]
        if answer not in allowed:
            why = (
                "it was never created"
                if not session.created
                else "status itself said -32002 (unknown) for it"
                if session.gone
                else "the client let it go and did not resume it"
            )
            words = sorted(_short(a) for a in allowed)
            rule = "unknown-id" if not session.created else "not-active-after-release"
            loaded = answer == ACTIVE and await self._loaded_by_status(ref, session, called_inactive)
            if rule != "unknown-id" and loaded:
                why = (
                    f"status itself called it {revisions.word(INACTIVE)!r} with only status calls since, and "
                    "asked again it is still active: a status call loaded it"
                )
                rule = "status-loads"
            self.fail(step, f"status answered {revisions.word(answer)!r}, but {why}: allowed {words}", rule)

    @staticmethod
    def _charged(notes: list[Notification], asked: str) -> list[Notification]:
        """The notifications a status call can be charged with: about the asked session, and not
        an extension (a `_` method, the agent's to send whenever it likes). Others are the
        agent's own business (list checks still see which sessions they touched)."""
        return [n for n in notes if session_of(n.params) == asked and not is_extension_method(n.method)]

    async def _status_burst(self, params: dict[str, Any], count: int) -> list[Reply]:
        """``count`` status calls with these params, all sent before the first answer is read."""
        replies: list[Reply | None] = [None] * count

        async def ask(i: int) -> None:
            replies[i] = await self.t.call("session/status", params)

        async with anyio.create_task_group() as tg:
            for i in range(count):
                tg.start_soon(ask, i)
        return [r for r in replies if r is not None]

    async def _op_burst(self, step: Step) -> None:
        """Several status calls for one session in flight at once: each answer is one a lone call
        may give, and the burst leaves the session as it found it (the steps after judge that)."""
        ref = step.ref
        assert ref is not None
        params: dict[str, Any] = {"sessionId": self.sid(ref)}
        if step.meta:
            params["_meta"] = {"conformance.example/probe": True}
        allowed = self.model.allowed(ref)
        mark = self.t.peer.transcript.mark()
        replies = await self._status_burst(params, max(step.times, 2))
        notes = self._charged(self.t.peer.notifications_since(mark), params["sessionId"])
        aside = await self._judge_notifications(step, params, notes) if notes else ""
        answers = [self._status_answer(step, reply) for reply in replies]  # in the order sent
        step.answer = ", ".join(_short(a) for a in answers) + aside
        for answer in answers:
            await self._judge_answer(step, ref, answer, allowed, called_inactive=INACTIVE in answers)
        session = self.model.sessions[ref]
        if session.created and session.held:
            self._statused_while_held.add(ref)
            self._last_status_meta[ref] = step.meta
            self._burst_while_held[ref] = len(replies)
            if any(a != ACTIVE for a in answers):
                await self._evicted(step, ref)
        for answer in answers:
            self.model.claimed(ref, answer)

    async def _op_race(self, step: Step) -> None:
        """Status calls for a session sent on both sides of a lifecycle call on it, all in flight
        together. The agent may handle them in any order, so each answer may be what the session
        was before the lifecycle call or after it; the model then moves as that call's own answer
        says, and the steps after judge what the race left behind."""
        ref = step.ref
        assert ref is not None and step.during in RACES, step
        if step.during == "prompt":
            try:  # before any call of the race: the turn counted, or the step is as if not drawn
                self.t.take_turn()
            except NoTurn as refused:
                step.answer = f"(not sent: {refused.short})"
                return
        session = self.model.sessions[ref]
        before = self.model.allowed(ref)
        was_held = session.held and session.created
        sid = self.sid(ref)
        params = {"sessionId": sid}
        side = max(step.times, 1)
        mark = self.t.peer.transcript.mark()
        reply, replies, arrived = await self._race_calls(step, params, side)
        notes = self._charged(self.t.peer.notifications_since(mark), sid)
        if step.during in ("reopen", "prompt"):
            # A resume (load) replays the session's history and a prompt streams its turn: updates
            # about the session in this window are theirs, not status's.
            notes = []
        answers = [self._status_answer(step, r) for r in replies if r is not None]
        step.answer = f"{step.during}: {'ok' if reply.ok else f'error {reply.code}'}; status: " + ", ".join(
            _short(a) for a in answers
        )
        if notes:
            step.answer += await self._judge_notifications(step, params, notes)
        await self._race_moves(step, ref, reply, was_held)
        after = self.model.allowed(ref)
        for answer in answers:
            await self._judge_answer(step, ref, answer, before | after)
        # Which side of the lifecycle call each answer saw is unknown: no claim is kept, and an
        # eviction is judged by the steps after, not here. But a status call sent after the close,
        # whose answer `inactive` came after the close's own, is a lone status call's after the
        # close: nothing but status calls came since, so a session that reads active later was
        # loaded by status (status-loads), not left in memory by the close.
        later = arrived[arrived.index(None) + 1 :] if None in arrived else []
        closed = step.during == "close" and reply.ok
        seen_closed = any(i is not None and i >= side and answers[i] == INACTIVE for i in later)
        session.claimed = INACTIVE if closed and seen_closed else None
        self._statused_while_held.discard(ref)

    async def _race_calls(
        self, step: Step, params: dict[str, Any], side: int
    ) -> tuple[Reply, list[Reply | None], list[int | None]]:
        """``side`` status calls, the lifecycle call, ``side`` more, all in flight together: the
        lifecycle call's reply, the status replies in the order sent, and the calls in the order
        their answers came (None: the lifecycle call)."""
        sid = params["sessionId"]
        lifecycle: dict[str, Reply] = {}
        replies: list[Reply | None] = [None] * (2 * side)
        arrived: list[int | None] = []

        async def ask(i: int) -> None:
            replies[i] = await self.t.call("session/status", params)
            arrived.append(i)

        async def act() -> None:
            if step.during == "close":
                lifecycle["reply"] = await self.t.call("session/close", {"sessionId": sid})
            elif step.during == "reopen":
                lifecycle["reply"] = await self.t.reopen(sid, self.cwd)
            else:  # a prompt: its answer (v1) or its turn's end (v2) comes after the status calls'
                lifecycle["reply"] = await self.t.prompt(sid, f"step {len(self.steps)}", taken=True)
            arrived.append(None)

        async with anyio.create_task_group() as tg:
            for i in range(side):
                tg.start_soon(ask, i)
            tg.start_soon(act)
            for i in range(side, 2 * side):
                tg.start_soon(ask, i)
        return lifecycle["reply"], replies, arrived

    async def _race_moves(self, step: Step, ref: str, reply: Reply, was_held: bool) -> None:
        """The race's lifecycle call moves the model by its own answer, as the lone call's step
        would."""
        session = self.model.sessions[ref]
        if step.during == "close":
            if was_held and not reply.ok and reply.code != NOT_FOUND:
                self.cannot(step, f"session/close of a live session failed: {reply.describe()}")
            self.model.touch(ref, "close")
            self.model.released(ref)
        elif step.during == "reopen":
            claimed = session.claimed if not session.held else None
            if not session.created:
                await self._reopened_unknown(step, ref, reply)
            else:
                self.model.touch(ref, "reopen")
                if reply.ok:
                    self.model.resumed(ref)
                elif (
                    claimed == INACTIVE
                    and ref not in self.archived  # a client unarchives before a resume (SHOULD)
                    and not (self.model.may_inactive_for_unknown and reply.code == NOT_FOUND)
                ):
                    self.fail(
                        step,
                        f"status said {revisions.word('inactive')!r} for {ref} (known, resumable), but resuming it "
                        f"failed: {reply.describe()}",
                        "inactive-resumable",
                    )
        else:
            # Only -32002 says the session left memory (as for a lone prompt): a refusal for another
            # reason (a turn already running, a transport error under load) says nothing of it.
            if (
                not reply.ok
                and was_held
                and reply.code == NOT_FOUND
                and not await self._prompts_fail_anyway()
            ):
                self.model.evicted(ref)  # allowed at any time; what status did shows in the steps after
            self.model.touch(ref, "prompt")
            if reply.ok:
                session.created = True
                self.model.resumed(ref)

    async def _loaded_by_status(self, ref: str, session: Any, called_inactive: bool = False) -> bool:
        """A released session status now calls active: did a status call load it? Yes if status
        itself called it inactive with nothing but status calls since (its last claim, or another
        call of the same burst: ``called_inactive``), and it stays active when asked once more (a
        status that merely said the wrong word once would not repeat it): the broken sentence is
        then "status MUST NOT have side effects", not what inactive means."""
        if session.claimed != INACTIVE and not called_inactive:
            return False
        again = await self.t.call("session/status", {"sessionId": self.sid(ref)})
        return (
            again.ok
            and isinstance(again.result, dict)
            and revisions.canonical(again.result.get("status")) == ACTIVE
        )

    def _status_answer(self, step: Step, reply: Reply) -> str:
        if not reply.ok:
            if reply.code != NOT_FOUND:
                self.fail(
                    step,
                    f"status answered error {reply.code}, expected a result or -32002: {reply.describe()}",
                    "unknown-error-code",
                )
            data = (reply.error or {}).get("data")
            if not isinstance(data, dict) or data.get("sessionId") != self.sid(step.ref or ""):
                self.fail(
                    step,
                    f"the -32002 error lacks data.sessionId of the id asked for: {reply.describe()}",
                    "unknown-error-data",
                )
            return UNKNOWN
        result = reply.result
        if not isinstance(result, dict) or not isinstance(result.get("status"), str):
            self.fail(step, f"status result has no string status: {reply.describe()}", "result-shape")
        value = result["status"]
        other = revisions.foreign(value)
        if other is not None:
            self.fail(
                step,
                f"status answered {value!r}, a word of revision {other}, not of {revisions.current().name}",
                "one-revision",
            )
        # Open enum: a value a client does not recognise reads as not active.
        return revisions.canonical(value) or INACTIVE

    async def _op_prompt(self, step: Step) -> None:
        ref = step.ref
        assert ref is not None
        session = self.model.sessions[ref]
        try:
            reply = await self.t.prompt(self.sid(ref), prompt_text(len(self.steps), step.times))
        except NoTurn as refused:  # no turn to be had (--max-prompts): the step is as if not drawn
            step.answer = f"(not sent: {refused.short})"
            return
        step.answer = "ok" if reply.ok else f"error {reply.code}"
        if not reply.ok and session.held and reply.code != NOT_FOUND:
            # Refused for another reason than an unknown session (a spent allowance, a rate limit, a
            # backend error): nothing says the session left memory.
            step.answer += " (a refusal, not -32002: it says nothing of memory)"
        elif not reply.ok and session.held:
            if await self._prompts_fail_anyway():
                step.answer += " (so does a prompt on a fresh session: it says nothing of this one)"
            else:
                await self._evicted(step, ref)
        self.model.touch(ref, "prompt")
        if reply.ok:
            # The agent has it in memory, whatever the model thought (some agents create or
            # load on prompt; that is not status's doing, and status is judged from here on).
            session.created = True
            self.model.resumed(ref)

    async def _op_cancel(self, step: Step) -> None:
        assert step.ref is not None
        await self.t.peer.notify("session/cancel", {"sessionId": self.sid(step.ref)})
        self.model.touch(step.ref, "cancel")
        step.answer = "(notification)"

    async def _op_close(self, step: Step) -> None:
        ref = step.ref
        assert ref is not None
        held = self.model.sessions[ref].held
        reply = await self.t.call("session/close", {"sessionId": self.sid(ref)})
        step.answer = "ok" if reply.ok else f"error {reply.code}"
        if held and not reply.ok and reply.code != NOT_FOUND:
            self.cannot(step, f"session/close of a live session failed: {reply.describe()}")
        self.model.touch(ref, "close")
        self.model.released(ref)

    async def _op_load(self, step: Step) -> None:
        """session/load where the agent offers resume too: the way back the reopen step does not
        take, so status is asked after each (a load replays the history, a resume does not)."""
        await self._op_reopen(step)

    async def _reopen_call(self, op: str, sid: str) -> Reply:
        if op == "load":
            params = {"sessionId": sid, "cwd": self.cwd, "mcpServers": []}
            reply = await self.t.call("session/load", params)
        else:
            reply = await self.t.reopen(sid, self.cwd)
        self._reopened[sid] = reply
        return reply

    # -- the rest of the surface: settings, delete, extension methods --------------------------

    async def _surface_call(self, op: str, sid: str, arg: str) -> str:
        """The surface step ``op`` on session ``sid``: its answer as twins are compared (whether it
        succeeded, and for a config option whether its answer reports the value set)."""
        if op == "mode":
            reply = await self.t.call("session/set_mode", {"sessionId": sid, "modeId": arg})
        elif op == "config":
            config_id, _, value = arg.partition("=")
            params = {"sessionId": sid, "configId": config_id, "value": value}
            reply = await self.t.call("session/set_config_option", params)
        elif op == "delete":
            reply = await self.t.call("session/delete", {"sessionId": sid})
        elif op == "fork":
            reply = await self.t.call("session/fork", {"sessionId": sid, "cwd": self.cwd, "mcpServers": []})
            forked = reply.result.get("sessionId") if reply.ok and isinstance(reply.result, dict) else None
            if isinstance(forked, str) and 0 < len(forked) <= MAX_NAME:
                self.forks[sid] = forked
        elif op in ("archive", "unarchive"):
            reply = await self.t.call(f"session/{op}", {"sessionId": sid})
        elif op == "title":
            params = {"sessionId": sid, "title": f"Retitled at step {len(self.steps)}"}
            reply = await self.t.call("session/set_title", params)
        else:
            reply = await self.t.call(arg, {"sessionId": sid})
        answer = "ok" if reply.ok else f"error {reply.code}"
        if reply.ok and op in ("mode", "config"):
            key, _, value = arg.partition("=") if op == "config" else ("mode", "", arg)
            self.settings_set.setdefault(sid, {})[key] = value
            if op == "config":
                answer += self._settings_view(sid, reply, only=key)
        if reply.ok and op == "delete":
            self.settings_set.pop(sid, None)
        return answer

    def _settings_view(self, sid: str, reply: Reply | None, only: str | None = None) -> str:
        """Whether the agent's answer reports each setting set on the session as set (the mode
        and config options a resume, a load or set_config_option report back). Only what was
        set is compared, and not a value either twin started with: a default may differ between
        sessions, and a setting the agent did not keep reads as kept on a twin whose default it is."""
        wanted = self.settings_set.get(sid) or {}
        reported = _reported_settings(reply)
        started = [self.defaults.get(sid, {}), self.defaults.get(self.partner.get(sid, sid), {})]
        view = []
        for key, value in sorted(wanted.items()):
            if (only is not None and key != only) or any(d.get(key) == value for d in started):
                continue
            if key not in reported:
                view.append(f"{key} not reported")
            else:
                view.append(f"{key} {'as set' if reported[key] == value else 'not as set'}")
        return "".join(f", {v}" for v in view)

    async def _op_surface(self, step: Step) -> None:
        ref = step.ref
        assert ref is not None
        session = self.model.sessions[ref]
        claimed = session.claimed if not session.held else None
        answer = await self._surface_call(step.op, self.sid(ref), step.during)
        step.answer = answer
        self.model.touch(ref, step.op)
        ok = answer.startswith("ok")
        if ok and claimed == UNKNOWN and step.op in FINDS_SESSIONS and session.created:
            self.fail(
                step,
                f"status said -32002 (unknown) for {ref}, yet {SURFACE_METHODS[step.op]} then found it (it answers "
                "-32002 for a session that does not exist)",
                "unknown-not-found",
            )
        if ok and step.op == "fork":
            await self._fork_known(step, ref)
        if ok and step.op in ("unarchive", "delete"):
            self.archived.discard(ref)
        if step.op == "archive":
            if ok:  # closed as session/close would, then archived: not in memory from here on
                self.model.released(ref)
                self._statused_while_held.discard(ref)
                self.archived.add(ref)
        elif step.op == "delete":
            if ok:  # deleted: status owes -32002 (or, on the MAY path, inactive) from here on
                self.model.released(ref)
                session.gone = True
                self._statused_while_held.discard(ref)
        elif ok and not session.held:
            # The agent had it in memory or loaded it for the call (as some do for a prompt): not
            # status's doing, and status is judged from here on.
            session.created = True
            self.model.resumed(ref)

    _op_mode = _op_config = _op_delete = _op_ext = _op_surface
    _op_fork = _op_archive = _op_unarchive = _op_title = _op_surface

    async def _fork_known(self, step: Step, ref: str) -> None:
        """The fork session/fork just made of the asked twin, asked about at once: the agent
        handed out its id, so it knows it (in memory or not, but never -32002). The twin's fork
        is never asked about (the step's answer, which the twins compare, leaves the status out)."""
        forked = self.forks.get(self.sid(ref))
        if forked is None:
            return
        reply = await self.t.call("session/status", {"sessionId": forked})
        if not reply.ok and reply.code == NOT_FOUND:
            self.fail(
                step,
                f"session/fork of {ref} answered a new session id, and status then said -32002 (unknown) for it: "
                f"{reply.describe()}",
                "fork-known",
            )

    async def _op_reopen(self, step: Step) -> None:
        ref = step.ref
        assert ref is not None
        session = self.model.sessions[ref]
        claimed = session.claimed if not session.held else None
        reply = await self._reopen_call(step.op, self.sid(ref))
        step.answer = "ok" if reply.ok else f"error {reply.code}"
        if not session.created:
            await self._reopened_unknown(step, ref, reply)
            return
        self.model.touch(ref, "reopen")
        if reply.ok:
            if claimed == UNKNOWN:
                self.fail(
                    step,
                    f"status said -32002 (unknown) for {ref}, yet session/resume then resumed it",
                    "unknown-not-resumable",
                )
            self.model.resumed(ref)
            self._statused_while_held.discard(ref)
        elif ref in self.archived:
            # Clients SHOULD unarchive a session before they resume it: an agent may refuse until then.
            step.answer += " (archived: a client unarchives it before a resume)"
        elif claimed == INACTIVE:
            if self.model.may_inactive_for_unknown and reply.code == NOT_FOUND:
                session.gone = True  # the MAY path: inactive for a session that does not exist
            else:
                self.fail(
                    step,
                    f"status said {revisions.word('inactive')!r} for {ref} (known, resumable), but resuming it "
                    f"failed: {reply.describe()}",
                    "inactive-resumable",
                )

    async def _reopened_unknown(self, step: Step, ref: str, reply: Reply) -> None:
        """A never-created id: on the MAY path (status said inactive), resume fails with -32002;
        otherwise resume succeeding blames status only if a fresh never-created id fails."""
        session = self.model.sessions[ref]
        if session.claimed == INACTIVE and (reply.ok or reply.code != NOT_FOUND):
            self.fail(
                step,
                f"status said {revisions.word('inactive')!r} for a never-created id (the MAY path), so resuming it must "
                f"fail with -32002: {reply.describe()}",
                "may-inactive-bound",
            )
        if not reply.ok:
            return
        control = await self.t.reopen(f"sess_never_created_{uuid.uuid4().hex}", self.cwd)
        if not control.ok and session.asked:
            self.fail(
                step,
                f"{ref}, a never-created id that only session/status was asked about, could be resumed, while a fresh "
                f"never-created id cannot ({control.describe()}): status created it",
                "unknown-not-created",
            )
        session.created = True  # the agent's resume creates sessions; from here on it is one
        self.model.resumed(ref)

    async def _judge_notifications(
        self, step: Step, params: dict[str, Any], notes: list[Notification]
    ) -> str:
        """Notifications arrived while status was asked. The asked session's history replayed is
        status attaching or loading it. Anything else may be the agent's own late update (a
        command list a moment after session/new, a title after a turn): once the agent is
        quiet, the same status must bring none, or status causes them."""
        asked = params["sessionId"]
        replayed = [n for n in notes if session_of(n.params) == asked and update_kind(n) in HISTORY_KINDS]
        if replayed:
            self.fail(
                step,
                f"a session/update ({update_kind(replayed[0])}) of the asked session arrived during session/status: "
                "status attached or replayed",
                "no-notification",
            )
        if not await self.t.quiet({asked}):
            self.fail(
                step,
                f"a {notes[0].method} notification arrived during session/status, and notifications about the asked "
                "session did not pause for --timeout after it",
                "no-notification",
            )
        again = await self._asked_again(params, asked)
        if again:
            # An agent's own late updates are few and end (a title a moment after each turn, late
            # under load); a status that sends them sends them every time: asked once more after
            # a longer quiet before it is charged with them.
            await self.t.quiet({asked}, period=LONG_QUIET)
            again = await self._asked_again(params, asked)
        if again:
            self.fail(
                step,
                f"a {again[0].method} notification arrived during session/status, and again each time it was asked "
                f"once more after a quiet moment ({LONG_QUIET:g} s the last time): status sends them",
                "no-notification",
            )
        self._dirty_by(notes)  # the agent's own: the sessions it touched are no list control
        kinds = sorted({str(update_kind(n) or n.method) for n in notes})
        return f" (the agent's own {', '.join(kinds)} arrived meanwhile; none when status was asked again)"

    async def _asked_again(self, params: dict[str, Any], asked: str) -> list[Notification]:
        """The notifications a status call asked once more can be charged with."""
        mark = self.t.peer.transcript.mark()
        await self.t.call("session/status", params)
        return self._charged(self.t.peer.notifications_since(mark), asked)

    def _dirty_by(self, notes: list[Notification]) -> None:
        """The sequence's sessions these notifications are about changed on the agent's own."""
        refs = {sid: ref for ref, sid in self.ids.items()}
        for note in notes:
            ref = refs.get(session_of(note.params) or "")
            if ref is not None:
                self.model.sessions[ref].dirty = True

    async def _list_pages(self, step: Step) -> tuple[list[dict[str, Any]], int]:
        """session/list filtered by the sequence's cwd, every page (nextCursor followed, bounded):
        its entries and how many pages they took."""
        entries: list[dict[str, Any]] = []
        params: dict[str, Any] = {"cwd": self.cwd}
        for page in range(1, MAX_PAGES + 1):
            reply = await self.t.call("session/list", params)
            if not reply.ok or not isinstance(reply.result, dict):
                self.cannot(step, f"session/list failed: {reply.describe()}")
            sessions = reply.result.get("sessions")
            entries += [
                e
                for e in (sessions if isinstance(sessions, list) else [])[:MAX_ENTRIES]
                if isinstance(e, dict)
            ]
            cursor = reply.result.get("nextCursor")
            if not isinstance(cursor, str) or not cursor or len(entries) >= MAX_ENTRIES:
                return entries, page
            params = {"cwd": self.cwd, "cursor": cursor}
        return entries, MAX_PAGES

    async def _op_list(self, step: Step) -> None:
        entries, pages = await self._list_pages(step)
        ours = {sid: ref for ref, sid in self.ids.items()}
        by_id: dict[Any, Any] = {}  # keyed by whatever the agent sent as a sessionId
        for entry in entries:
            sid = entry.get("sessionId")
            if sid in by_id and sid in ours:  # other examples' sessions are not this sequence's business
                self.fail(step, f"session/list lists {ours[sid]} twice", "list-no-duplicate")
            by_id[sid] = entry
        step.answer = f"{sum(1 for s in by_id if s in ours)} of ours" + (
            f" in {pages} pages" if pages > 1 else ""
        )
        self.list_shows_ours = self.list_shows_ours or any(sid in by_id for sid in ours)
        if not self.list_shows_ours and any(self.model.sessions[ref].held for ref in ours.values()):
            # Calibration: a list that has never shown a session this client holds cannot show
            # what status did to them (a cwd filter of its own, say); its checks conclude nothing.
            step.answer += " (it has shown none of the held sessions: list checks not consulted)"
            return
        # A session the agent sent an update about since the last list changed on its own (a title
        # made after a turn): its entry is no control of what status did. Status's own
        # notifications are judged where status is asked.
        self._dirty_by(self.t.peer.notifications_since(self.list_mark))
        self.list_mark = self.t.peer.transcript.mark()
        for sid, ref in ours.items():
            session = self.model.sessions[ref]
            if not session.created and sid in by_id:
                self.fail(
                    step,
                    f"session/list shows {ref}, an id that was never created, only asked about",
                    "list-no-stranger",
                )
            before = self.list_snapshot.get(sid)
            if session.created and not session.dirty and before is not None and by_id.get(sid) != before:
                self.fail(
                    step,
                    f"the list entry of {ref} changed though only status calls touched it: "
                    f"{json.dumps(before)} -> {json.dumps(by_id.get(sid))}",
                    "list-unchanged",
                )
        self.list_snapshot = {sid: by_id[sid] for sid in ours if sid in by_id}
        for session in self.model.sessions.values():
            session.dirty = False
        for ref, twin_sid in list(self.twin.items()):
            await self._compare(
                step, ref, "session/list", _listed(by_id.get(self.sid(ref))), _listed(by_id.get(twin_sid))
            )

    async def _second(self) -> AcpTarget:
        other = _SECOND.get(self.t)
        if other is None:
            other = _SECOND[self.t] = await self.t.connect_again("B")
        return other

    async def _op_remote(self, step: Step) -> None:
        """A second connection (B) asks status about the session, then prompts it: B never created
        or resumed it, so whatever B's prompt gets, it must be what B's prompt on the twin B never
        asked about gets (a status that registers B as the session's client lets B in)."""
        ref = step.ref
        assert ref is not None
        other = await self._second()
        sid = self.sid(ref)
        asked = await other.status(sid)
        try:
            reply = await other.prompt(sid, f"step {len(self.steps)} from B")
        except NoTurn as refused:
            step.answer = f"(not sent: {refused.short})"
            return
        word = "error " + str(asked.code) if not asked.ok else str((asked.result or {}).get("status"))
        step.answer = (
            "ok" if reply.ok else f"error {reply.code}"
        ) + f" (B's prompt, after B's status: {word})"
        if reply.ok:
            self.model.touch(ref, "prompt")

    async def _op_wait(self, step: Step) -> None:
        """Time: the agent left alone for ``times`` tenths of a second (a state forgotten, a timer
        that fires, a background save a moment after status)."""
        await anyio.sleep(step.times / 10)
        step.answer = f"waited {step.times / 10:g} s"

    async def _op_pressure(self, step: Step) -> None:
        """Memory pressure: ``times`` sessions created one after the other (the machine draws about
        the agent's memory cap), which an agent with a cap makes room for by evicting others: which
        twin of a pair it evicts is its eviction order's business, never the status calls'."""
        for _ in range(max(step.times, 1)):
            await self._create(step)
        step.answer = f"{max(step.times, 1)} sessions created"

    async def _op_restart(self, step: Step) -> None:
        _SECOND.pop(self.t, None)  # the restart closed it
        await self.t.restart()
        self.model.restarted()
        for session in self.model.sessions.values():
            session.ops.append("restart")
        self._statused_while_held.clear()
        step.answer = "restarted"

    # -- eviction: allowed, unless status causes it --------------------------------------------

    async def _evicted(self, step: Step, ref: str) -> None:
        session = self.model.sessions[ref]
        if ref in self._statused_while_held and "restart" not in session.ops:
            try:
                blame = await self._status_causes_eviction(
                    session.ops, self._last_status_meta.get(ref, False), self._burst_while_held.get(ref, 1)
                )
            except NoTurn:  # no prompt left to confirm it on two fresh sessions: no blame
                blame = None
            if blame:
                self.fail(
                    step, f"{ref} is no longer in memory, and status is the cause: {blame}", "no-eviction"
                )
        self.model.evicted(ref)
        self._statused_while_held.discard(ref)

    async def _prompts_fail_anyway(self) -> bool:
        """Calibration of the prompt probe: whether a prompt on a session just created fails too (a
        model backend that refuses every turn). Then a failed prompt shows no eviction."""
        control = await self.t.new_session(self.cwd)
        try:
            return not (await self.t.prompt(control, "control")).ok
        except NoTurn:  # no prompt left to calibrate with: the failed prompt shows nothing
            return True

    async def _status_causes_eviction(self, ops: list[str], meta: bool, calls: int = 1) -> str | None:
        """Replay the session's operations on two fresh sessions, one with a status call (``calls``
        of them at once, where a burst preceded the eviction)."""

        async def fresh() -> str:
            sid = await self.t.new_session(self.cwd)
            for op in ops[1:]:
                if op == "prompt":
                    await self.t.prompt(sid, "control")
                elif op == "cancel":
                    await self.t.peer.notify("session/cancel", {"sessionId": sid})
                elif op == "close":
                    await self.t.call("session/close", {"sessionId": sid})
                elif op == "reopen":
                    await self.t.reopen(sid, self.cwd)
            await anyio.sleep(0)
            return sid

        control = await fresh()
        control_ok = (await self.t.prompt(control, "control")).ok
        probe = await fresh()
        params: dict[str, Any] = {"sessionId": probe}
        if meta:
            params["_meta"] = {"conformance.example/probe": True}
        if calls > 1:
            await self._status_burst(params, calls)
        else:
            await self.t.call("session/status", params)
        probe_ok = (await self.t.prompt(probe, "probe")).ok
        if control_ok and not probe_ok:
            steps = " -> ".join(ops)
            what = f"{calls} status calls at once" if calls > 1 else "one"
            return (
                f"after [{steps}], a prompt works without a status call and fails after {what} "
                "(confirmed on two fresh sessions)"
            )
        return None


_HEX = "0123456789abcdef"


def mutated_id(own: str) -> str:
    """Another id of the same form as ``own``: its prefix (up to the last ``_``) kept, and each
    character after it replaced by a random one of the same kind (a lower-case hex digit, an
    upper-case one, a letter of the same case, a digit; punctuation such as a UUID's dashes kept),
    so it is never ``own``. A UUID's version digit stays, as a parser may check it."""
    rng = random.SystemRandom()
    cut = own.rfind("_") + 1
    head, tail = own[:cut], own[cut:]
    hex_only = tail != "" and all(c in _HEX or c in _HEX.upper() or not c.isalnum() for c in tail)
    uuid_like = len(tail) == 36 and tail.count("-") == 4
    while True:
        out = []
        for i, c in enumerate(tail):
            if not c.isascii() or not c.isalnum() or (uuid_like and i == 14):
                out.append(c)
            elif hex_only:
                pick = rng.choice(_HEX)
                out.append(pick.upper() if c.isupper() else pick)
            elif c.isdigit():
                out.append(rng.choice(string.digits))
            elif c.isupper():
                out.append(rng.choice(string.ascii_uppercase))
            else:
                out.append(rng.choice(string.ascii_lowercase))
        found = head + "".join(out)
        if found != own and any(ch.isascii() and ch.isalnum() for ch in tail):
            return found
        if not any(ch.isascii() and ch.isalnum() for ch in tail):  # nothing to vary: a suffix
            return f"{own}{uuid.uuid4().hex[:8]}"


def _listed(entry: Any) -> str:
    """A session's list entry as twins are compared: whether it is listed, and whether with a title
    (not the title's words, which a model may write, nor its times)."""
    if not isinstance(entry, dict):
        return "not listed"
    return "listed with a title" if entry.get("title") else "listed"


def _short(answer: str) -> str:
    """A model answer as the agent's word, or -32002."""
    return revisions.word(answer) if answer != UNKNOWN else "-32002"


def _reported_settings(reply: Reply | None) -> dict[str, Any]:
    """The mode and config option values an answer reports (session/new, load, resume,
    set_config_option)."""
    result = reply.result if reply is not None and reply.ok and isinstance(reply.result, dict) else {}
    reported: dict[str, Any] = {}
    modes = result.get("modes")
    if isinstance(modes, dict):
        reported["mode"] = modes.get("currentModeId")
    options = result.get("configOptions")
    for option in options if isinstance(options, list) else []:
        if isinstance(option, dict) and isinstance(option.get("id"), str):
            reported.setdefault(option["id"], option.get("currentValue"))
    return reported

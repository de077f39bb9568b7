"""Differential twins for `session_heartbeat`: calls that must change nothing, compared under pressure.

A rejected call changes nothing, a retry is not applied again, and another caller's heartbeat
changes nothing of the session it names. "Nothing" includes what shows only later: the session's
place in a memory cap, its idle timer, its request allowance. No single answer shows those, so the
suite makes twin sessions, created alike (one heartbeat each, a value the calibrated probe reads
back), sends the calls that must change nothing (the *nudges*) to one of them, puts both under the
same pressure, and compares their fates:

- memory: as many new sessions as the cap leaves room for, so that exactly the least recently
  used of the two is evicted: the nudged twin must not outlive the other (the room is the stated
  cap, or one session fewer or more where a round without nudges shows the server reads "a cap
  of N" that way: evicting on reaching N, or once past it);
- time: both left idle past the time to live, the nudges sent halfway: the nudged twin must not
  outlive the other;
- use: heartbeats for both, alternately, until each is refused: they must be allowed as many.

A plain policy must never look like a side effect, so every comparison is calibrated and
symmetric: a memory round without nudges first shows the policy evicts the older of two twins
used alike (else the twins cannot judge, and say why); each comparison is made twice, with the
nudged twin created first and then second, and a divergence counts only when both show it. Once
the twins diverge, a round per kind of nudge names the calls that did it.

Judgement on data here (:func:`ttl_schedule`, :func:`cap_from_reads`, :func:`ttl_bracket`,
:func:`same_divergence`), tested without a server; the rest makes the calls.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from conformance.core.outcomes import MissingInput
from conformance.targets.mcp.probe import StateProbe, calibrate, same
from conformance.targets.mcp.target import new_key, new_session_id

if TYPE_CHECKING:
    from conformance.targets.mcp.target import McpTarget

__all__ = [
    "KINDS",
    "Nudger",
    "Policy",
    "Twin",
    "cap_from_reads",
    "discover_cap",
    "discover_limit",
    "discover_ttl",
    "same_divergence",
    "ttl_bracket",
    "ttl_schedule",
]

# The calls that must change nothing of a session, by the rule (and sentence) each checks.
KINDS = {
    "rejected": "calls the server rejects (progressPercent 101, status 'finished')",
    "retry": "retries of the session's first call (same key, same arguments): one, then three at once",
    "other-caller": "caller B's heartbeat for the session's id",
}
BURST = 3  # retries sent at once
INVALID = ({"progressPercent": 101}, {"status": "finished"})  # invalid calls (two: a meter may round)
# Discovery (the thorough profile, when the user states no policy): how far it looks.
DISCOVER_SESSIONS = 512
DISCOVER_REQUESTS = 256
TTL_READS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 15.0)
FILL_BATCH = 8  # new sessions created at once while filling the cap


@dataclass(frozen=True)
class Policy:
    """A server policy as the user stated it or the thorough profile found it."""

    value: float  # the cap, the limit, or the time to live's upper bound (seconds)
    source: str  # "--mcp-session-cap 24", "found by the thorough profile's discovery"
    low: float | None = None  # a time to live's lower bound (None: value)


def ttl_schedule(low: float, high: float, spread: float) -> tuple[float, float] | None:
    """When to nudge and when to read, in seconds after the first twin was created, for a time to
    live between ``low`` and ``high`` and twins created over ``spread`` seconds: read once every
    twin has been idle ``high`` (the control is gone), nudge early enough that a nudge taken for
    use keeps the nudged twin past the read, and before any twin expires. None: no such time."""
    read = spread + high
    nudge = read / 2
    if not (read - low < nudge < low):
        return None
    return nudge, read


def cap_from_reads(kept_newest_first: list[bool]) -> int | None:
    """The cap, from sessions created one after another and read back newest first (a read of a
    kept session evicts nothing; the first one missing ends the count). None: all were kept."""
    for count, kept in enumerate(kept_newest_first):
        if not kept:
            return count
    return None


def ttl_bracket(read_after: list[float], kept: list[bool]) -> tuple[float, float] | None:
    """The time to live's bounds, from sessions created together and read once each, after these
    many seconds: after the last one kept and by the first one gone. None: none was gone."""
    for n, (after, there) in enumerate(zip(read_after, kept, strict=True)):
        if not there:
            return (read_after[n - 1] if n else 0.0), after
    return None


def same_divergence(rounds: list[tuple[Any, Any]]) -> bool:
    """Whether the nudged twin's fate differs from its control's in every round, the same way."""
    if not rounds:
        return False
    first = rounds[0]
    return first[0] != first[1] and all(r == first for r in rounds)


@dataclass
class Twin:
    """A session created by one heartbeat that writes a value the probe reads back."""

    sid: str
    value: Any
    key: str
    args: dict[str, Any]

    async def kept(self, mcp: McpTarget, probe: StateProbe) -> bool:
        """Its value still reads back: the server kept it (a read uses the session, as any heartbeat)."""
        return same(await probe.read(mcp, self.sid), self.value)


async def new_twin(mcp: McpTarget, probe: StateProbe, sid: str | None = None) -> Twin:
    value = probe.values(1)[0]
    twin = Twin(sid or new_session_id(), value, new_key(), probe.write(value))
    await mcp.ok_heartbeat(twin.sid, idempotencyKey=twin.key, **twin.args)
    return twin


def id_pair(nudged_sorts_first: bool) -> tuple[str, str]:
    """Two new session ids, the nudged twin's first: sorting before the other's, or after it (a
    policy that goes by id order flips between the two, a side effect does not)."""
    low, high = sorted(new_session_id() for _ in range(2))
    return (low, high) if nudged_sorts_first else (high, low)


async def new_sessions(mcp: McpTarget, count: int) -> None:
    """``count`` new sessions, a few at a time."""
    left = count
    while left > 0:
        batch = min(left, FILL_BATCH)
        async with anyio.create_task_group() as tg:
            for _ in range(batch):
                tg.start_soon(mcp.ok_heartbeat, new_session_id())
        left -= batch


@dataclass
class Nudger:
    """Sends the calls that must change nothing, and records what each got."""

    mcp: McpTarget
    other: McpTarget | None = None  # caller B, when the run has one
    kinds: tuple[str, ...] = tuple(KINDS)
    sent: list[str] = field(default_factory=list)

    async def nudge(self, twin: Twin, kinds: tuple[str, ...] | None = None) -> None:
        for kind in kinds if kinds is not None else self.kinds:
            if kind == "rejected":
                replies = [await self.mcp.heartbeat(twin.sid, **invalid) for invalid in INVALID]
                rejected = sum(1 for r in replies if r.rejected)
                self.sent.append(f"{len(replies)} invalid calls: {rejected} rejected")
            elif kind == "retry":
                replies = [await self.mcp.heartbeat(twin.sid, idempotencyKey=twin.key, **twin.args)]
                async with anyio.create_task_group() as tg:
                    for _ in range(BURST):
                        tg.start_soon(self._retry, twin, replies)
                answered = sum(1 for r in replies if r.succeeded)
                self.sent.append(f"{len(replies)} retries: {answered} answered")
            elif kind == "other-caller" and self.other is not None:
                reply = await self.other.heartbeat(twin.sid, status="blocked")
                self.sent.append(f"caller B's heartbeat: {'refused' if reply.rejected else 'accepted'}")

    async def _retry(self, twin: Twin, replies: list[Any]) -> None:
        replies.append(await self.mcp.heartbeat(twin.sid, idempotencyKey=twin.key, **twin.args))


@contextlib.asynccontextmanager
async def nudger(mcp: McpTarget, *, refused_callers_only: bool = False) -> AsyncIterator[Nudger]:
    """A nudger with caller B when the run has one. ``refused_callers_only``: B's calls are nudges
    only where the server refuses B on A's sessions; a server that scopes ids per caller gives B a
    session of B's own, which is B's use, not A's (and under a shared cap, one more session)."""
    if mcp.harness.config.transport != "http" or mcp.options.other_headers is None:
        yield Nudger(mcp, None, ("rejected", "retry"))
        return
    async with mcp.other_caller() as other:
        kinds = tuple(KINDS)
        if refused_callers_only:
            scratch = new_session_id()
            await mcp.ok_heartbeat(scratch)
            if (await other.heartbeat(scratch)).succeeded:
                kinds = ("rejected", "retry")
        yield Nudger(mcp, other, kinds)


# -- discovery (the thorough profile) --------------------------------------------------------------


async def discover_cap(mcp: McpTarget, probe: StateProbe) -> int | None:
    """Create sessions one after another, then read them newest first: how many were kept."""
    twins = [await new_twin(mcp, probe) for _ in range(DISCOVER_SESSIONS)]
    kept = []
    for twin in reversed(twins):
        kept.append(await twin.kept(mcp, probe))
        if not kept[-1]:
            break
    return cap_from_reads(kept)


async def discover_ttl(mcp: McpTarget, probe: StateProbe, longest: float) -> tuple[float, float] | None:
    """Sessions created together, each read once after a longer wait (up to ``longest`` seconds):
    the idle time after which one was forgotten, bracketed."""
    reads = [t for t in TTL_READS if t <= longest]
    twins = [await new_twin(mcp, probe) for _ in reads]
    started = time.monotonic()
    kept = []
    for twin, after in zip(twins, reads, strict=True):
        await anyio.sleep(max(0.0, started + after - time.monotonic()))
        kept.append(await twin.kept(mcp, probe))
        if not kept[-1]:
            break
    return ttl_bracket(reads[: len(kept)], kept)


async def discover_limit(mcp: McpTarget) -> int | None:
    """Heartbeats for one session until one is refused: how many were taken."""
    sid = new_session_id()
    for taken in range(DISCOVER_REQUESTS):
        if not (await mcp.heartbeat(sid)).succeeded:
            return taken if taken else None
    return None


# -- the server's policies: stated by the user, else found by the thorough profile -----------------

POLICIES = {
    # name: (option, metavar, what it is, how far discovery looks)
    "session_cap": ("--mcp-session-cap", "N", "session cap", f"within {DISCOVER_SESSIONS} sessions"),
    "session_ttl": ("--mcp-session-ttl", "SECONDS", "idle time to live", "within the hold ({hold:g} s)"),
    "request_limit": (
        "--mcp-request-limit",
        "N",
        "per-session request limit",
        f"within {DISCOVER_REQUESTS} heartbeats",
    ),
}


async def policy(mcp: McpTarget, name: str) -> Policy:
    """The server's policy ``name``: as the user stated it; else, in the thorough profile, as a
    discovery probe finds it (once per run); else MissingInput naming the option."""
    option, metavar, what, looked = POLICIES[name]
    config = mcp.harness.config
    stated = getattr(mcp.options, name)
    if stated is not None:
        if name == "session_ttl":  # forgotten once idle that long: gone a little later at the latest
            return Policy(1.2 * stated + 0.1, f"{option} {stated:g}", low=stated)
        return Policy(stated, f"{option} {stated}")
    if config.profile != "thorough":
        raise MissingInput(
            f"needs the server's {what}: pass {option} {metavar} (or run --profile thorough, which looks for one)"
        )
    if name not in mcp.discovered:
        probe = await calibrate(mcp)
        if name == "session_cap":
            mcp.discovered[name] = await discover_cap(mcp, probe)
        elif name == "session_ttl":
            mcp.discovered[name] = await discover_ttl(mcp, probe, config.hold_seconds)
        else:
            mcp.discovered[name] = await discover_limit(mcp)
    found = mcp.discovered[name]
    if found is None:
        raise MissingInput(
            f"the thorough profile's discovery found no {what} {looked.format(hold=config.hold_seconds)}: if the "
            f"server has one, pass {option} {metavar}"
        )
    source = "found by the thorough profile's discovery"
    if name == "session_ttl":
        low, high = found
        return Policy(high, f"{source}: between {low:g} and {high:g} s", low=low)
    return Policy(found, f"{source}: {found}")

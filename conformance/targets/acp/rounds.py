"""The rounds of the twin engine: twin sessions created and treated alike, status asked about some
of them (one call at a time, then a burst sent together), a pressure (prompts, a restart, more
sessions than the agent holds, a wait past its idle delay), and what became of each twin read in
one go. What the fates mean is judged in twins.py; the cases are in cases/acp/pressure.py.

Also what the pressure cases need to know of the agent's policy: its memory cap and idle delay,
given with --memory-cap and --idle-evict-after, or found by the thorough profile's discovery.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from conformance.core import revisions
from conformance.core.outcomes import MissingInput
from conformance.targets.acp.controls import changed_fields, is_extension_method, notification_kind
from conformance.targets.acp.expect import SESSION_NOT_FOUND
from conformance.targets.acp.target import AcpTarget, session_of
from conformance.targets.acp.twins import Fate, Round, Seat, roles
from conformance.transport.peer import Reply

__all__ = [
    "ASK_BURST",
    "ASK_SINGLES",
    "PAIRS",
    "answer",
    "ask",
    "calibrate_idle",
    "idle_delay",
    "idle_round",
    "later_round",
    "memory_cap",
    "memory_round",
    "restart_round",
    "statuses",
    "use_round",
    "watch_inactive",
]

ASK_SINGLES = 5  # status calls one at a time, about each asked twin
ASK_BURST = 8  # then this many sent together
PAIRS = 4  # twin pairs in a memory or idle round (fewer where the memory cap holds fewer)
USE_PROMPTS = 2  # prompts each twin gets after status was asked (a model call each on a real agent)
# The idle calibration looks at one untouched session at each of these multiples of the idle delay.
IDLE_PROBES = (1.25, 1.5, 2.0, 3.0)
DISCOVERY_LIMIT = 128  # sessions the thorough profile's memory discovery creates at most
TOGETHER = 64  # status calls sent together at most, when many sessions are read
# Seconds between an idle round's last status calls and its reading: background work a status call
# started (a reload, a save) shows by then.
LAST_CALL_SETTLE = 0.5


def answer(reply: Reply) -> str:
    """'active', 'inactive', 'unknown' (-32002), 'other:<word>' or 'error <code>'."""
    if not reply.ok:
        return "unknown" if reply.code == SESSION_NOT_FOUND else f"error {reply.code}"
    value = reply.result.get("status") if isinstance(reply.result, dict) else None
    return revisions.canonical(value) or f"other:{value}"


def state_of(reply: Reply) -> str:
    """The v2 foreground state a status result reports ("" where none)."""
    state = reply.result.get("state") if reply.ok and isinstance(reply.result, dict) else None
    value = state.get("state") if isinstance(state, dict) else None
    return value if isinstance(value, str) else ""


def outcome(reply: Reply) -> str:
    return "ok" if reply.ok else f"error {reply.code}"


async def together(acp: AcpTarget, calls: Sequence[tuple[str, Any]]) -> list[Reply]:
    """Requests sent together: each is on the wire before any answer is awaited; answers in order."""
    replies: list[Reply | None] = [None] * len(calls)

    async def one(index: int, method: str, params: Any) -> None:
        replies[index] = await acp.call(method, params)

    async with anyio.create_task_group() as tg:
        for index, (method, params) in enumerate(calls):
            tg.start_soon(one, index, method, params)
    return [r for r in replies if r is not None]


async def statuses(acp: AcpTarget, sids: Sequence[str]) -> list[Reply]:
    """One status call about each session, sent together (in groups of TOGETHER)."""
    found: list[Reply] = []
    for start in range(0, len(sids), TOGETHER):
        chunk = sids[start : start + TOGETHER]
        found += await together(acp, [("session/status", {"sessionId": sid}) for sid in chunk])
    return found


async def ask(acp: AcpTarget, sids: Sequence[str]) -> None:
    """Status about each session: ASK_SINGLES calls one at a time, then ASK_BURST sent together."""
    for sid in sids:
        for _ in range(ASK_SINGLES):
            await acp.status(sid)
    for sid in sids:
        await together(acp, [("session/status", {"sessionId": sid})] * ASK_BURST)


async def listing(acp: AcpTarget, sids: Sequence[str]) -> dict[str, str]:
    """Whether session/list shows each session, and whether with a title ({} without session/list).
    Not the title itself: agents have a model write it, in other words for each session."""
    if not acp.advertises("list"):
        return {}
    entries = await acp.list_sessions()
    found = {}
    for sid in sids:
        entry = entries.get(sid)
        if entry is None:
            found[sid] = "no"
        else:
            found[sid] = "with a title" if entry.get("title") else "yes"
    return found


async def observe(acp: AcpTarget, sids: Sequence[str]) -> dict[str, Fate]:
    """Each session's status (one call each, sent together: the same moment for all) and its listing."""
    replies = await statuses(acp, sids)
    shown = await listing(acp, sids)
    return {
        sid: Fate(status=answer(reply), state=state_of(reply), listed=shown.get(sid, ""))
        for sid, reply in zip(sids, replies, strict=True)
    }


def seated(layout: Sequence[bool], sids: Sequence[str], fates: dict[str, Fate]) -> Round:
    return Round(
        tuple(
            Seat(n, asked, fates[sid], sid) for n, (asked, sid) in enumerate(zip(layout, sids, strict=True))
        )
    )


def asked_of(layout: Sequence[bool], sids: Sequence[str]) -> list[str]:
    return [sid for sid, asked in zip(sids, layout, strict=True) if asked]


# -- use: prompts after status ------------------------------------------------------------------


async def use_round(acp: AcpTarget, asked_first: bool) -> Round:
    """Two twins, a prompt each; status about one; then USE_PROMPTS more prompts each (the twins in
    turn, the first to go alternating), and their status and listing. Each twin's prompts, the
    first (before any status call) included."""
    layout = roles(1, asked_first)
    sids = [await acp.new_session() for _ in layout]
    turn = acp.harness.config.turn_timeout
    prompts: dict[str, list[str]] = {sid: [] for sid in sids}
    for sid in sids:
        prompts[sid].append(outcome(await acp.prompt(sid, "a twin's first turn", timeout=turn)))
    await ask(acp, asked_of(layout, sids))
    for n in range(USE_PROMPTS):
        for sid in sids if n % 2 == 0 else sids[::-1]:
            prompts[sid].append(outcome(await acp.prompt(sid, f"a twin's turn {n + 2}", timeout=turn)))
    await acp.quiet(set(sids))  # a title the agent makes a moment after a turn is in, for both
    seen = await observe(acp, sids)
    fates = {sid: Fate(**{**seen[sid].aspects(), "prompts": tuple(prompts[sid])}) for sid in sids}
    return seated(layout, sids, fates)


# -- later: left alone for the hold after the status calls ----------------------------------------


async def later_round(acp: AcpTarget, asked_first: bool) -> Round:
    """Two pairs of twins, an inactive pair then a live one (each twin given one turn, the first
    pair's closed, or the agent restarted where it cannot close); status about one twin of each;
    then all four left alone for the hold (--hold) and read: what changed in each one's session/list
    entry and which notifications came about it meanwhile, then its status and listing. A load, a
    save or a timer status sets off in the background shows only here."""
    layout = roles(2, asked_first)
    sids = [*await acp.inactive_sessions(2), *await acp.prompted_sessions(2)]
    everything = set(sids)
    await acp.quiet(everything)  # a title the agent makes after a turn is in before the watch
    before = await settled_listing(acp, sids)
    mark = acp.peer.transcript.mark()
    await ask(acp, asked_of(layout, sids))
    await anyio.sleep(acp.harness.config.hold_seconds)
    await acp.quiet(everything)
    after = await acp.list_sessions() if acp.advertises("list") else {}
    kinds: dict[str, set[str]] = {sid: set() for sid in sids}
    for note in acp.peer.notifications_since(mark):
        about = session_of(note.params)
        if about in kinds and not is_extension_method(note.method):
            kinds[about].add(notification_kind(note))
    seen = await observe(acp, sids)
    fates = {}
    for sid in sids:
        touched = ""
        if before:
            touched = ", ".join(sorted(changed_fields(before.get(sid), after.get(sid)))) or "none"
        fates[sid] = Fate(
            **{**seen[sid].aspects(), "touched": touched, "notified": tuple(sorted(kinds[sid]))}
        )
    return seated(layout, sids, fates)


# Of --hold: how long the twins' list entries must stay the same before the status calls, and how
# often they are read meanwhile.
SETTLE_SHARE = 0.25
SETTLE_READS = 3


async def settled_listing(acp: AcpTarget, sids: Sequence[str]) -> dict[str, Any]:
    """The session/list entries once the twins' own writes are in ({} without session/list): read
    until the twins' entries stayed the same for a quarter of the hold, at most one hold. A save an agent
    makes a moment after a turn (a flusher, a debounce) then lands before the status calls, not in
    the window that judges them: a status call that marks the session for that same save would
    otherwise be hidden in it, or shown in one round and not the next."""
    if not acp.advertises("list"):
        return {}
    hold = acp.harness.config.hold_seconds
    window = hold * SETTLE_SHARE
    start = anyio.current_time()
    seen = await acp.list_sessions()
    changed = start
    while anyio.current_time() - changed < window and anyio.current_time() - start < hold:
        await anyio.sleep(window / SETTLE_READS)
        now = await acp.list_sessions()
        if any(now.get(sid) != seen.get(sid) for sid in sids):
            changed = anyio.current_time()
        seen = now
    return seen


# -- restart ------------------------------------------------------------------------------------


@dataclass
class UnknownTwins:
    """Two never-created ids, status asked about the first before a restart: what each was after it."""

    asked: str
    unasked: str
    fates: dict[str, Fate] = field(default_factory=dict)


async def restart_round(acp: AcpTarget, asked_first: bool, unknown: UnknownTwins | None = None) -> Round:
    """Two twins, status about one, the agent restarted; then their status and listing, and whether
    each resumes (v1 with session/load: and the user turns its replay shows). ``unknown``: the
    same for two never-created ids across the same restart (``unknown.fates``)."""
    layout = roles(1, asked_first)
    sids = [await acp.new_session() for _ in layout]
    await ask(acp, asked_of(layout, sids))
    if unknown is not None:
        await ask(acp, [unknown.asked])
    await acp.restart()
    seen = await observe(acp, sids)
    fates = {}
    for sid in sids:
        reopen, history = "", ""
        if acp.protocol == 1 and acp.advertises("load"):
            reply, updates = await acp.load_replay(sid)
            reopen = outcome(reply)
            users = [
                u.get("content", {}).get("text")
                for u in updates
                if isinstance(u, dict)
                and u.get("sessionUpdate") == "user_message_chunk"
                and isinstance(u.get("content"), dict)
            ]
            history = f"{len(users)} user turn(s)" + (
                f": {' | '.join(str(t)[:40] for t in users)}" if users else ""
            )
        elif acp.advertises("persist"):
            reopen = outcome(await acp.reopen(sid))
        fates[sid] = Fate(**{**seen[sid].aspects(), "reopen": reopen, "history": history})
    if unknown is not None:
        unknown.fates.update(await observe(acp, [unknown.asked, unknown.unasked]))
        if acp.advertises("persist"):
            for sid in (unknown.asked, unknown.unasked):
                aspects = unknown.fates[sid].aspects()
                unknown.fates[sid] = Fate(**{**aspects, "reopen": outcome(await acp.reopen(sid))})
    return seated(layout, sids, fates)


# -- memory -------------------------------------------------------------------------------------


async def memory_cap(acp: AcpTarget) -> tuple[int, bool]:
    """The agent's memory cap and whether the user declared it (--memory-cap), else what the
    thorough profile's discovery found; MissingInput when neither."""
    policy = acp.policy
    if policy.memory_cap is not None:
        return policy.memory_cap, True
    if acp.harness.config.profile != "thorough":
        raise MissingInput(
            "needs the agent's memory cap: pass --memory-cap N (the number of sessions it holds in memory at "
            "most), or run the thorough profile, which looks for it"
        )
    if policy.cap_discovery is None:
        await discover_cap(acp)
    if policy.discovered_cap is None:
        raise MissingInput(f"{policy.cap_discovery}: pass --memory-cap N if your agent has one")
    return policy.discovered_cap, False


async def discover_cap(acp: AcpTarget) -> None:
    """Create sessions (2, then doubling, up to DISCOVERY_LIMIT) and read them all after each batch:
    once some read not active, the cap is how many read active."""
    policy = acp.policy
    sids: list[str] = []
    batch = 2
    while len(sids) < DISCOVERY_LIMIT:
        sids += [await acp.new_session() for _ in range(min(batch, DISCOVERY_LIMIT - len(sids)))]
        answers = [answer(r) for r in await statuses(acp, sids)]
        held = answers.count("active")
        if held < len(sids) and held > 0:
            policy.discovered_cap = held
            policy.cap_discovery = (
                f"the thorough profile's discovery: of {len(sids)} sessions created one after the other, {held} "
                "read active"
            )
            return
        batch = len(sids)
    policy.cap_discovery = (
        f"the thorough profile's discovery created {len(sids)} sessions and found no memory cap (never some "
        "active and some not)"
    )


async def memory_round(
    acp: AcpTarget, cap: int, layout: Sequence[bool], *, asking: bool, first_used_again: bool = False
) -> tuple[Round, list[str]]:
    """``cap`` sessions first (memory full of sessions older than the twins), the twins (all fit in
    memory, unless the cap is 1), status about the asked ones (``asking``), then ``cap - pairs``
    more sessions: under a least-recently-used or first-in-first-out policy that evicts half the
    twins. ``first_used_again``: the first twin is used once more (resumed, or prompted where the
    agent cannot resume) right after the twins are created, so the order of use is the reverse of
    the order of creation: the swapped layout of a single pair (see :func:`use_again`). The round
    (``first_used_again``: its seats at positions 2 and 3, whose baseline is of that layout), and
    every session it created."""
    made = [await acp.new_session() for _ in range(cap)]
    sids = [await acp.new_session() for _ in layout]
    if first_used_again:
        await use_again(acp, sids[0])
    if asking:
        await ask(acp, asked_of(layout, sids))
    made += [await acp.new_session() for _ in range(cap - len(layout) // 2)]
    fates = await observe(acp, sids)
    rnd = seated(layout, sids, fates)
    if first_used_again:
        rnd = Round(tuple(Seat(s.position + 2, s.asked, s.fate, s.session_id) for s in rnd.seats))
    return rnd, [*made, *sids]


async def use_again(acp: AcpTarget, sid: str) -> None:
    """What every agent counts as use of a session it holds: a resume (or load) where it offers one,
    else a turn. With a single pair of twins the asked twin created second is the most recently used
    already, so a status that counts as use changes no order; used once more, the first twin is the
    most recent, and the roles are swapped in the order of use."""
    if acp.advertises("resume") or acp.advertises("load"):
        reply = await acp.reopen(sid)
        if reply.ok:
            return
    await acp.prompt(sid, "a twin used once more")


# -- idle ---------------------------------------------------------------------------------------


async def idle_delay(acp: AcpTarget) -> tuple[float, bool]:
    """The agent's idle delay and whether the user declared it (--idle-evict-after), else what the
    thorough profile's discovery found; MissingInput when neither."""
    policy = acp.policy
    if policy.idle_evict_after is not None:
        return policy.idle_evict_after, True
    if acp.harness.config.profile != "thorough":
        raise MissingInput(
            "needs the agent's idle eviction delay: pass --idle-evict-after S (the seconds after which it "
            "evicts a session nobody used), or run the thorough profile, which looks for it"
        )
    if policy.idle_discovery is None:
        hold = acp.harness.config.hold_seconds
        times = [hold * m / len(IDLE_PROBES) for m in range(1, len(IDLE_PROBES) + 1)]
        found = await calibrate_idle(acp, times)
        if found is None:
            policy.idle_discovery = (
                f"the thorough profile's discovery left sessions alone for up to {hold:g} s (--hold) and none "
                "read inactive"
            )
        else:
            policy.discovered_idle = policy.calibrated_idle = found[0]
            policy.idle_discovery = (
                f"the thorough profile's discovery: a session left alone read inactive after {found[0]:g} s"
            )
    if policy.discovered_idle is None:
        raise MissingInput(
            f"{policy.idle_discovery}: pass --idle-evict-after S if your agent evicts idle sessions"
        )
    return policy.discovered_idle, False


async def calibrate_idle(acp: AcpTarget, times: Sequence[float]) -> tuple[float, str, str] | None:
    """Sessions created together and left alone, each looked at once (a status call is "use" in
    exactly the agents under suspicion, so no session is looked at twice): the one at ``times[i]``
    seconds. (the first time one read not active, that session, a session created with them and
    never looked at), or None when every one read active."""
    probes = [await acp.new_session() for _ in range(len(times) + 1)]
    start = anyio.current_time()
    for sid, after in zip(probes, times, strict=False):
        await anyio.sleep(max(0.0, start + after - anyio.current_time()))
        await nudge(acp)
        if answer(await acp.status(sid)) != "active":
            return after, sid, probes[-1]
    return None


async def nudge(acp: AcpTarget) -> None:
    """A request about another session before the twins are read (a new one, as any client's traffic
    sends): an agent that sweeps idle sessions only when a request comes does it now."""
    await acp.new_session()


async def idle_round(
    acp: AcpTarget, delay: float, layout: Sequence[bool], *, asking: bool = True, wait: float = 1.2
) -> Round:
    """The twins, status about the asked ones right away and then again every quarter of the delay
    while the others are left alone (``asking``; else nobody is asked), until ``wait`` times the
    delay after the last twin was created; then, past the delay, status about the asked ones once
    more, and all of them read in one go a moment later (LAST_CALL_SETTLE: what a status call about a session
    the agent evicted starts in the background has finished)."""
    sids = [await acp.new_session() for _ in layout]
    created = anyio.current_time()
    asked = asked_of(layout, sids) if asking else []
    await ask(acp, asked)
    until = created + wait * delay
    tick = min(max(delay / 4, 0.05), 1.0)
    while asked and anyio.current_time() + tick < until:
        await anyio.sleep(tick)
        for sid in asked:
            await acp.status(sid)
    await anyio.sleep(max(0.0, until - anyio.current_time()))
    await nudge(acp)
    for sid in asked:
        await acp.status(sid)
    await anyio.sleep(max(tick, LAST_CALL_SETTLE))
    return seated(layout, sids, await observe(acp, sids))


# -- the agent's own transitions ----------------------------------------------------------------


async def watch_inactive(acp: AcpTarget, sid: str, seconds: float) -> list[tuple[float, str]]:
    """Status about a session the agent evicted, over ``seconds``: one call every tenth of a second
    and a burst of ASK_BURST every second. The answers with their times, up to the first `active`."""
    seen: list[tuple[float, str]] = []
    start = anyio.current_time()
    next_burst = start
    while anyio.current_time() - start < seconds:
        if anyio.current_time() >= next_burst:
            replies = await together(acp, [("session/status", {"sessionId": sid})] * ASK_BURST)
            next_burst += 1.0
        else:
            replies = [await acp.status(sid)]
        for reply in replies:
            seen.append((round(anyio.current_time() - start, 2), answer(reply)))
            if seen[-1][1] == "active":
                return seen
        await anyio.sleep(0.1)
    return seen

"""MCP `session_heartbeat`: calls that change nothing, compared under pressure (differential twins).

A rejected call changes nothing (MCP: servers validate tool inputs), a retry is not applied again
(idempotency keys), another caller's heartbeat changes nothing of the session (access). A session
is more than what a result shows: its place under a memory cap, its idle timer and its request
allowance change only later. Each case here makes twin sessions alike but for those calls, puts both
under one pressure and compares their fates (conformance/targets/mcp/twins.py says how, and why
a plain eviction policy never looks like a side effect). The server's policies are options
(--mcp-session-cap, --mcp-session-ttl, --mcp-request-limit), found by the thorough profile's
discovery where not given; otherwise these cases are not testable.
"""

from __future__ import annotations

import time
from typing import Any

import anyio

from conformance.core.outcomes import MissingInput, NotApplicable, Problems, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.probe import StateProbe, calibrate
from conformance.targets.mcp.target import McpTarget
from conformance.targets.mcp.twins import (
    KINDS,
    Nudger,
    Policy,
    Twin,
    id_pair,
    new_sessions,
    new_twin,
    nudger,
    policy,
    same_divergence,
    ttl_schedule,
)

# "Preserve correlation IDs and unchanged mutation idempotency keys ac…"
RETRIES = requirement("mcp-session-heartbeat-2025-06-18", "retries")
RULES = tuple(KINDS)


def _violation(what: str, fates: dict[str, Any], culprits: list[str], nudges: Nudger) -> Violation:
    named = culprits or list(nudges.kinds)
    return Violation(
        f"{what}; the calls that did it: " + "; ".join(KINDS[k] for k in named),
        expected="the same fate for both twins: those calls change nothing of the session",
        observed={"fates": fates, "nudges sent": nudges.sent[:12]},
        rule=named[0],
    )


# -- memory ----------------------------------------------------------------------------------------


async def _cap_round(
    mcp: McpTarget, probe: StateProbe, room: int, nudges: Nudger, kinds: tuple[str, ...] | None, first: bool
) -> str:
    """Two twins, the older nudged (unless ``kinds`` is None), then, for a server that keeps ``room``
    sessions, room for exactly one of them: which one the server evicted ("older", "newer", or
    "none")."""
    older_id, newer_id = id_pair(first)
    older, newer = await new_twin(mcp, probe, older_id), await new_twin(mcp, probe, newer_id)
    if kinds is not None:
        await nudges.nudge(older, kinds)
    await new_sessions(mcp, room - 1)
    # The newer first: a read of an evicted session opens it anew, which evicts the least recently
    # used, so only the first read is exact (a kept newer twin is now used, and stays).
    if not await newer.kept(mcp, probe):
        return "newer"
    return "older" if not await older.kept(mcp, probe) else "none"


def _evicted(fate: str) -> str:
    return "no twin evicted" if fate == "none" else f"the {fate} twin evicted"


def _room_off_by_one(cap: int, plain: str) -> int | None:
    """The room to try when a round sized by the stated cap evicted no twin (one more) or the newer,
    both gone (one fewer); None where there is none worth a round (room for one: no order of use)."""
    room = {"none": cap + 1, "newer": cap - 1}.get(plain)
    return room if room is not None and room >= 2 else None


@case("heartbeat.twins.session-cap", level=Level.MUST, spec=RETRIES, needs=("heartbeat",), rules=RULES)
async def twins_under_a_session_cap(mcp: McpTarget, details: dict) -> None:
    """Twins created one after the other; the older gets the calls that must change nothing
    (a rejected call, retries, caller B's refused heartbeat); then room for one of them under the
    server's session cap: the older must still be the one evicted, as in a round without those
    calls, with the nudged twin's id sorting first and then last. The cap is taken as stated, or
    one fewer or one more where the round without nudges shows the server reads it that way."""
    stated = await policy(mcp, "session_cap")
    cap = int(stated.value)
    details["policy"] = stated.source
    if cap < 2:
        raise NotApplicable(
            f"under {stated.source} the newer twin evicts the older whatever calls the older got: with room for one "
            "session there is no order of use for those calls to change"
        )
    probe = await calibrate(mcp)
    async with nudger(mcp, refused_callers_only=True) as nudges:
        plain = await _cap_round(mcp, probe, cap, nudges, None, True)
        details["without nudges"] = _evicted(plain)
        room, tried = cap, _room_off_by_one(cap, plain)
        if tried is not None:
            # "A cap of N" is read both ways (evict on reaching N, or once past it): a round sized
            # for one session fewer or more tells which, rather than give up on a legal reading.
            shifted = await _cap_round(mcp, probe, tried, nudges, None, True)
            details[f"without nudges, room for {tried}"] = _evicted(shifted)
            if shifted == "older":
                plain, room = shifted, tried
                details["room"] = f"{room} sessions: {stated.source}, read the other way"
        also = "" if tried is None else f" (nor did a round sized for {tried} evict the older)"
        if plain == "none":
            raise MissingInput(
                f"two twins and {cap - 1} sessions after them ({stated.source}) evicted neither{also}: the server keeps "
                "more sessions than that, so no pressure reached the twins"
            )
        if plain == "newer":
            raise MissingInput(
                f"under {stated.source}, the newer of two twins used alike was evicted, not only the least recently "
                f"used{also}: the twins can compare fates only under a policy that evicts the older"
            )
        rounds = [
            (await _cap_round(mcp, probe, room, nudges, nudges.kinds, first), "older")
            for first in (True, False)
        ]
        details["with nudges"] = [_evicted(fate) for fate, _ in rounds]
        if not same_divergence(rounds):
            return
        culprits: list[str] = []
        shown = Problems(
            lambda found: _violation(
                found[0][1],
                {"without nudges": "older evicted", "with nudges": [f"{fate} evicted" for fate, _ in rounds]},
                culprits,
                nudges,
            )
        )
        shown.add(
            None,
            f"under {stated.source}, the twin that got only calls that must change nothing outlived the other: the "
            "server counted them as use and evicted the twin used more recently (with its id sorting first and last)",
        )
        with shown.kept(details):  # the divergence stands, whatever the search for its calls runs into
            for kind in nudges.kinds:
                if await _cap_round(mcp, probe, room, nudges, (kind,), True) != "older":
                    culprits.append(kind)
    raise shown.violation()


# -- time ------------------------------------------------------------------------------------------


@case("heartbeat.twins.idle-expiry", level=Level.MUST, spec=RETRIES, needs=("heartbeat",), rules=RULES)
async def twins_past_the_idle_expiry(mcp: McpTarget, details: dict) -> None:
    """Twin pairs, one pair per kind of call that must change nothing, the nudged twin created first
    in one pair and second in the other; the calls are sent halfway through the server's idle time
    to live; once every twin has been idle past it, the nudged twins must be forgotten as their
    controls are."""
    stated = await policy(mcp, "session_ttl")
    probe = await calibrate(mcp)
    low = stated.low if stated.low is not None else stated.value
    details["policy"] = stated.source
    async with nudger(mcp) as nudges:
        started = time.monotonic()
        pairs = await _nudged_pairs(mcp, probe, nudges)
        read_at = await _nudge_halfway_then_wait(nudges, pairs, stated, low, started)
        fates = {
            kind: [
                (await nudged.kept(mcp, probe), await control.kept(mcp, probe)) for nudged, control in twins
            ]
            for kind, twins in pairs.items()
        }
    details["fates (nudged kept, control kept)"] = fates
    if any(control for rounds in fates.values() for _, control in rounds):
        raise MissingInput(
            f"a twin left idle for {read_at:.2f} s was still kept ({stated.source}): the server forgets idle "
            "sessions later than that, so no expiry reached the twins"
        )
    culprits = [kind for kind, rounds in fates.items() if same_divergence(rounds)]
    if culprits:
        raise _violation(
            f"after {read_at:.2f} s idle ({stated.source}), the twins that got only calls that must change nothing "
            f"halfway were still kept, their controls forgotten: the server took them for use",
            {
                k: ["nudged kept, control forgotten" if n else "both forgotten" for n, _ in r]
                for k, r in fates.items()
            },
            culprits,
            nudges,
        )
    if any(nudged for rounds in fates.values() for nudged, _ in rounds):
        raise MissingInput(
            "a nudged twin outlived its control in one pair only (created first in one, second in the other): the "
            f"server's expiry does not treat twins alike, so the twins cannot judge: {fates}"
        )


async def _nudged_pairs(
    mcp: McpTarget, probe: StateProbe, nudges: Nudger
) -> dict[str, list[tuple[Twin, Twin]]]:
    """Two twin pairs per kind of nudge, (nudged, control), the nudged twin's id sorting first in
    one and last in the other."""
    pairs: dict[str, list[tuple[Twin, Twin]]] = {}
    for kind in nudges.kinds:
        for nudged_first in (True, False):
            a_id, b_id = id_pair(nudged_first)
            a, b = await new_twin(mcp, probe, a_id), await new_twin(mcp, probe, b_id)
            pairs.setdefault(kind, []).append((a, b) if nudged_first else (b, a))
    return pairs


async def _nudge_halfway_then_wait(
    nudges: Nudger, pairs: dict[str, list[tuple[Twin, Twin]]], stated: Policy, low: float, started: float
) -> float:
    """Nudge each pair's nudged twin halfway through the idle time to live, then wait until every
    twin has been idle past it: the seconds after ``started`` at which their fates are read."""
    schedule = ttl_schedule(low, stated.value, time.monotonic() - started)
    if schedule is None:
        raise MissingInput(
            f"creating {2 * len(pairs) * 2} twins took {time.monotonic() - started:.2f} s, too long for "
            f"{stated.source}: a nudge could not be sent both before they expire and late enough to tell"
        )
    nudge_at, read_at = schedule
    await anyio.sleep(max(0.0, started + nudge_at - time.monotonic()))
    for kind, twins in pairs.items():
        for nudged, _ in twins:
            await nudges.nudge(nudged, (kind,))
    if time.monotonic() - started >= low:
        raise MissingInput(
            f"the nudges took until {time.monotonic() - started:.2f} s after the twins were created, past the "
            f"time to live ({stated.source}): a retry of an expired session's call opens it anew"
        )
    await anyio.sleep(max(0.0, started + read_at - time.monotonic()))
    return read_at


# -- use -------------------------------------------------------------------------------------------


async def _allowance(mcp: McpTarget, twins: tuple[Twin, Twin], most: int) -> tuple[int, int]:
    """Heartbeats for both twins, alternately, until each is refused (at most ``most`` each): how
    many each took."""
    taken, open_ = [0, 0], [True, True]
    for _ in range(most):
        for n, twin in enumerate(twins):
            if open_[n]:
                if (await mcp.heartbeat(twin.sid)).succeeded:
                    taken[n] += 1
                else:
                    open_[n] = False
        if not any(open_):
            break
    return taken[0], taken[1]


async def _limit_round(
    mcp: McpTarget, probe: StateProbe, limit: int, nudges: Nudger, kinds: tuple[str, ...], first: bool
) -> tuple[int, int]:
    a_id, b_id = id_pair(first)
    with mcp.past_allowance():  # the twins' heartbeats, the nudges' included, are what the case counts
        a, b = await new_twin(mcp, probe, a_id), await new_twin(mcp, probe, b_id)
        nudged, control = (a, b) if first else (b, a)
        await nudges.nudge(nudged, kinds)
        return await _allowance(mcp, (nudged, control), limit + 1)


@case("heartbeat.twins.request-limit", level=Level.MUST, spec=RETRIES, needs=("heartbeat",), rules=RULES)
async def twins_under_a_request_limit(mcp: McpTarget, details: dict) -> None:
    """Twins created alike; one gets the calls that must change nothing; then heartbeats for both,
    alternately, until the server's per-session limit refuses each: both must have been allowed as
    many (the nudged twin created first, then second)."""
    stated = await policy(mcp, "request_limit")
    probe = await calibrate(mcp)
    limit = int(stated.value)
    details["policy"] = stated.source
    async with nudger(mcp) as nudges:
        rounds = [
            await _limit_round(mcp, probe, limit, nudges, nudges.kinds, first) for first in (True, False)
        ]
        details["heartbeats taken after creation (nudged, control)"] = rounds
        if any(control > limit for _, control in rounds):
            raise MissingInput(
                f"a twin took {max(c for _, c in rounds) + 1} heartbeats without a refusal ({stated.source}): the "
                "server allows more than that, so no limit reached the twins"
            )
        if not same_divergence(rounds):
            if any(n != c for n, c in rounds):
                raise MissingInput(
                    f"the twins were allowed different numbers of heartbeats in one order only: {rounds}; the "
                    "server's limit does not treat twins alike, so the twins cannot judge"
                )
            return
        culprits: list[str] = []
        shown = Problems(
            lambda found: _violation(
                found[0][1],
                {"nudged created first": rounds[0], "nudged created second": rounds[1]},
                culprits,
                nudges,
            )
        )
        shown.add(
            None,
            f"under {stated.source}, the twin that got only calls that must change nothing was allowed a different "
            f"number of heartbeats than its control: {rounds[0][0]} against {rounds[0][1]} (and {rounds[1][0]} "
            f"against {rounds[1][1]} created second): those calls were counted",
        )
        with shown.kept(details):  # the divergence stands, whatever the search for its calls runs into
            for kind in nudges.kinds:
                nudged, control = await _limit_round(mcp, probe, limit, nudges, (kind,), True)
                if nudged != control:
                    culprits.append(kind)
    raise shown.violation()

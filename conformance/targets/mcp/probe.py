"""Reading a session's recorded state back through heartbeat results, calibrated before use.

Several cases infer what a call did from what a later heartbeat shows: a retry that was applied
again, a rejected call or another caller's call that changed the session. The spec says neither
what a heartbeat result contains nor that a heartbeat without a field keeps that field's
recorded value (a server may record a status-less heartbeat as "active"). So before such a case
draws a conclusion, it proves on a fresh session of its own that the read observes: write a
value, read it back with a heartbeat that does not carry the field, write another, read it
twice (the read itself changes nothing). The read is the value at the JSON Pointer where the
written value showed up, wherever the server puts it. A server whose results pass none of this
gets "not testable" from those cases, with the reason, never a conclusion.

Judgement only on data here (:func:`leaves`, :func:`pointers_to`, :func:`execution_fields`),
so it is tested without a server; :func:`calibrate` does the calls.
"""

from __future__ import annotations

import itertools
import json
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from conformance.core.outcomes import MissingInput

if TYPE_CHECKING:
    from conformance.targets.mcp.target import McpTarget, ToolReply

__all__ = [
    "ABSENT",
    "StateProbe",
    "calibrate",
    "calibrated",
    "execution_fields",
    "leaves",
    "pointers_to",
    "same",
]

ABSENT: Any = type("Absent", (), {"__repr__": lambda self: "absent"})()


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def leaves(data: Any, prefix: str = "") -> dict[str, Any]:
    """Every scalar of a JSON document by its JSON Pointer (an empty object or list is a leaf)."""
    if isinstance(data, dict) and data:
        found: dict[str, Any] = {}
        for key, value in data.items():
            found |= leaves(value, f"{prefix}/{_escape(str(key))}")
        return found
    if isinstance(data, list) and data:
        found = {}
        for index, value in enumerate(data):
            found |= leaves(value, f"{prefix}/{index}")
        return found
    return {prefix: data}


def same(a: Any, b: Any) -> bool:
    """JSON equality: 1 and 1.0 are one number, true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b


def pointers_to(data: Any, value: Any) -> set[str]:
    return {p for p, v in leaves(data).items() if same(v, value)}


def execution_fields(first: Any, other_execution: Any, replay: Any) -> set[str]:
    """Where two executions' results differ and a replay of the first does not: the fields that
    tell one execution from another (a per-call id), without a per-response one (a timestamp, a
    "replayed" flag)."""
    a, b, r = leaves(first), leaves(other_execution), leaves(replay)
    pointers = set(a) | set(b) | set(r)
    return {
        p
        for p in pointers
        if not same(a.get(p, ABSENT), b.get(p, ABSENT)) and same(a.get(p, ABSENT), r.get(p, ABSENT))
    }


# Reads in a row never carry the same value: a server that takes a call with the arguments of an
# earlier one for its retry (whatever its key) answers a repeated read from its cache, and random
# values repeat now and then.
_next_read = itertools.count(random.randrange(1000)).__next__


def _markers(n: int) -> list[Any]:
    return [f"conformance probe {uuid.uuid4().hex[:12]}" for _ in range(n)]


# The fields a heartbeat writes and a later one can show, in the order tried, with a source of
# distinct values for each (currentStep's are unique strings: found wherever the server puts them).
CANDIDATES: dict[str, Callable[[int], list[Any]]] = {
    "currentStep": _markers,
    "status": lambda n: ["waiting", "blocked", "active"][:n],
    "progressPercent": lambda n: ([17.25, 83.5, 61.75] + [round(3.25 + 1.5 * k, 2) for k in range(n)])[:n],
}


@dataclass(frozen=True)
class StateProbe:
    """A field a heartbeat writes, and where a later heartbeat without it shows its recorded value."""

    field: str
    pointer: str

    def values(self, n: int = 2) -> list[Any]:
        """n distinct values to write (fresh markers for currentStep); MissingInput where the field
        has fewer (status has three)."""
        found = CANDIDATES[self.field](n)
        if len(found) < n:
            raise MissingInput(
                f"the probe reads {self.field}, which has {len(found)} values; this case tells {n} sessions or calls "
                "apart (results that show currentStep or progressPercent would do)"
            )
        return found

    def write(self, value: Any) -> dict[str, Any]:
        return {self.field: value}

    def value_in(self, data: Any) -> Any:
        return leaves(data).get(self.pointer, ABSENT)

    async def read(self, mcp: McpTarget, session_id: str) -> Any:
        """The recorded value, read with a heartbeat that does not carry the field."""
        return self.value_in((await read(mcp, session_id, self.field)).data)

    def describe(self) -> str:
        return f"{self.field}, read at {self.pointer} of a heartbeat result without it"

    async def forgets_after(self, mcp: McpTarget, others: int) -> bool:
        """Whether the server forgets a session once ``others`` new sessions had a heartbeat after
        it (a session cap of ``others`` or fewer): a control of the arrangement a case used, so a
        read that shows no state is laid at the cap's door only where plain sessions show it too.
        A policy of the server's: asked once per run."""
        key = f"forgets a session after {others} others"
        if key not in mcp.discovered:
            sid = new_probe_session()
            value = self.values(1)[0]
            await mcp.ok_heartbeat(sid, **self.write(value))
            for _ in range(others):
                await mcp.ok_heartbeat(new_probe_session(), status="active")
            mcp.discovered[key] = not same(await self.read(mcp, sid), value)
        return mcp.discovered[key]


CALIBRATION_CALLS = 5  # the heartbeats _try makes: over a smaller stated allowance, on two sessions


async def read(mcp: McpTarget, session_id: str, field: str) -> ToolReply:
    """A heartbeat without ``field``. Each read differs from the last in another field, so a server
    that answers a call identical to an earlier one from a cache (whatever its key) still reads."""
    other = (
        {"currentStep": _markers(1)[0]}
        if field == "progressPercent"
        else {"progressPercent": _next_read() % 99 + 1}
    )
    return await mcp.ok_heartbeat(session_id, **other)


async def _try(mcp: McpTarget, field: str) -> StateProbe | str:
    sid = new_probe_session()
    a, b = CANDIDATES[field](2)
    await mcp.ok_heartbeat(sid, **{field: a})
    first = (await read(mcp, sid, field)).data
    candidates = pointers_to(first, a)
    if not candidates:
        return f"after writing {field}={a!r}, a heartbeat without it did not show {a!r} (result keys: {_keys(first)})"
    limit = mcp.options.request_limit
    if limit is not None and limit < CALIBRATION_CALLS:
        sid = new_probe_session()  # the rest on a second session, within the stated allowance
    await mcp.ok_heartbeat(sid, **{field: b})
    second = (await read(mcp, sid, field)).data
    third = (await read(mcp, sid, field)).data
    changed = sorted(p for p in candidates if same(leaves(second).get(p, ABSENT), b))
    if not changed:
        shown = leaves(second).get(min(candidates), ABSENT)
        return f"after writing {field}={b!r}, a heartbeat without it showed {shown!r} at {min(candidates)}"
    kept = [p for p in changed if same(leaves(third).get(p, ABSENT), b)]
    if not kept:
        shown = leaves(third).get(changed[0], ABSENT)
        return f"reading {field} twice changed it: {b!r}, then {shown!r} at {changed[0]}"
    return StateProbe(field, min(kept, key=lambda p: (p.count("/"), p)))


async def calibrate(mcp: McpTarget) -> StateProbe:
    """The first field whose recorded value heartbeats show, or MissingInput saying why none does."""
    reasons = []
    for field in CANDIDATES:
        found = await _try(mcp, field)
        if isinstance(found, StateProbe):
            return found
        reasons.append(found)
    raise MissingInput(
        "heartbeat results do not show a session's recorded state so that the suite can read it back (calibrated "
        "on a fresh session: write a value, read it with a heartbeat without that field, write another, read it "
        "twice): "
        + "; ".join(reasons)
        + ". Whether a call changed the session cannot be observed from outside"
    )


async def calibrate_all(mcp: McpTarget, first: StateProbe) -> list[StateProbe]:
    """``first`` and every other field whose recorded value heartbeats show (each calibrated as
    :func:`calibrate` does): what a call that reports the whole state can be checked on."""
    found = [first]
    for field in CANDIDATES:
        if field != first.field and isinstance(probe := await _try(mcp, field), StateProbe):
            found.append(probe)
    return found


async def read_untouched(mcp: McpTarget, session_id: str) -> ToolReply:
    """A heartbeat that carries none of the probes' fields, differing from the last in its step
    pair (stepIndex 1 of a stepCount the last read did not carry), so a server answering from a cache still reads."""
    return await mcp.ok_heartbeat(session_id, stepIndex=1, stepCount=_next_read() % 999 + 2)


async def calibrated(mcp: McpTarget) -> tuple[StateProbe | None, str]:
    """The probe, or None and why there is none (for cases that can still conclude through another
    channel)."""
    try:
        return await calibrate(mcp), ""
    except MissingInput as missing:
        return None, missing.message


def new_probe_session() -> str:
    return f"conformance-probe-{uuid.uuid4().hex[:16]}"


def _keys(data: Any) -> str:
    if isinstance(data, dict):
        return ", ".join(sorted(map(str, data))[:20]) or "none"
    return json.dumps(data)[:80] if data is not None else "no JSON"

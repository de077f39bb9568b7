"""MCP `session_heartbeat`: idempotency keys, retries answered and never applied twice.

Spec: cases/revisions/sources/mcp-session-heartbeat-2025-06-18.txt ("Preserve correlation IDs and
unchanged mutation idempotency keys across safe retries", "Unique retry key"). Whether a call was
applied is read back through a calibrated probe (conformance.targets.mcp.probe): each case first
proves, on a fresh session, that a heartbeat without a field shows that field's recorded value and
that reading it changes nothing; where none does, the case is not testable.
"""

from __future__ import annotations

import json
import math
import time
import uuid
from dataclasses import dataclass
from typing import Any

import anyio

from conformance.core.outcomes import MissingInput, NotTestable, Problems, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.probe import ABSENT, StateProbe, calibrate, execution_fields, leaves, same
from conformance.targets.mcp.target import McpTarget, ToolReply, new_key, new_session_id

# "Preserve correlation IDs and unchanged mutation idempotency keys ac…"
RETRIES = requirement("mcp-session-heartbeat-2025-06-18", "retries")
# "Unique retry key"
KEY = requirement("mcp-session-heartbeat-2025-06-18", "key")


@case("heartbeat.idempotency.retry-answered", level=Level.MUST, spec=RETRIES, needs=("heartbeat",))
async def retry_is_answered(mcp: McpTarget, details: dict) -> None:
    """A retry (same key, same arguments, its members in another order) after another heartbeat
    is answered with a result, not refused. What that result shows is the server's: the spec
    forbids executing a retry again (heartbeat.idempotency.not-applied-twice, concurrent-retry),
    not answering it with the session as it is now."""
    sid, key = new_session_id(), new_key()
    await mcp.ok_heartbeat(sid, status="active")
    first = await mcp.ok_heartbeat(sid, idempotencyKey=key, progressPercent=10)
    await mcp.ok_heartbeat(sid, progressPercent=55)
    # JSON objects are unordered: a server that compares the text of the arguments would take
    # the retry for another call under the same key.
    retry = await mcp.call({"progressPercent": 10, "idempotencyKey": key, "sessionId": sid})
    details.update(first=first.data, retry=retry.data if retry.succeeded else retry.describe())
    if not retry.succeeded:
        raise Violation(
            "a retry with the same idempotencyKey and arguments was answered with an error: a safe retry "
            "must get an answer, or the caller never learns what its call did",
            expected="a result with isError false",
            observed=retry.describe(),
        )
    details["answer"] = (
        "the first call's result" if same(first.data, retry.data) else "another result than the first call's"
    )


@case("heartbeat.idempotency.not-applied-twice", level=Level.MUST, spec=RETRIES, needs=("heartbeat",))
async def retry_is_not_applied_again(mcp: McpTarget, details: dict) -> None:
    """A retry does not apply its arguments again: a later change survives it."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    sid, key = new_session_id(), new_key()
    first, later = probe.values(2)
    await mcp.ok_heartbeat(sid, idempotencyKey=key, **probe.write(first))
    await mcp.ok_heartbeat(sid, **probe.write(later))
    await mcp.heartbeat(sid, idempotencyKey=key, **probe.write(first))
    after = await probe.read(mcp, sid)
    if not same(after, later):
        raise Violation(
            f"after {probe.field} {first!r} (key K), {later!r}, then a retry of K, the session's {probe.field} is "
            f"{after!r}: the retry was applied a second time",
            expected=f"{probe.field} {later!r} (the retry changes nothing)",
            observed=after,
        )


@case("heartbeat.idempotency.new-key-new-call", level=Level.MUST, spec=RETRIES, needs=("heartbeat",))
async def new_key_is_a_new_call(mcp: McpTarget, details: dict) -> None:
    """The same arguments under a new key are a new call, applied again."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    sid = new_session_id()
    first, later = probe.values(2)
    await mcp.ok_heartbeat(sid, **probe.write(first))
    await mcp.ok_heartbeat(sid, **probe.write(later))
    await mcp.ok_heartbeat(sid, **probe.write(first))  # the first call's arguments, a new key
    after = await probe.read(mcp, sid)
    if not same(after, first):
        raise Violation(
            f"after {probe.field} {first!r}, {later!r}, then {first!r} again under a new key, it is {after!r}: the "
            "server took the new call for a retry of the first (deduplicated by arguments, not by key)",
            expected=f"{probe.field} {first!r}",
            observed=after,
        )


@case("heartbeat.idempotency.key-variants", level=Level.MUST, spec=KEY, needs=("heartbeat",))
async def key_in_another_form_is_another_key(mcp: McpTarget, details: dict) -> None:
    """A key that differs from an earlier one only by case or surrounding spaces is a new key: its
    call is applied, not answered as a retry nor refused as one reused (unless the server refuses
    keys of that form on any call)."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    problems = Problems.listed(
        "another string is another key: its call applied",
        lead="a key differing from an earlier key only in form was taken for it (answered as its retry, or "
        "refused as reused), not applied: ",
    )
    with problems.kept(details):  # the second form's session refused keeps what the first showed
        for form, variant in (("upper-case", str.upper), ("surrounded by spaces", lambda k: f" {k} ")):
            sid, key = new_session_id(), new_key()
            first, later = probe.values(2)
            await mcp.ok_heartbeat(sid, idempotencyKey=key, **probe.write(first))
            await mcp.ok_heartbeat(sid, **probe.write(later))
            reply = await mcp.heartbeat(sid, idempotencyKey=variant(key), **probe.write(first))
            if reply.rejected:
                # Refusing a key of that form is the server's rule, if it refuses one that collides
                # with nothing too: a fresh key in that form, on a new session.
                control = await mcp.heartbeat(
                    new_session_id(), idempotencyKey=variant(new_key()), **probe.write(first)
                )
                if control.succeeded:
                    problems.add(
                        None,
                        f"{form} ({variant(key)!r}): refused ({reply.describe()}), while a fresh key in that form "
                        "is taken on a new session",
                    )
                continue
            after = await probe.read(mcp, sid)
            if not same(after, first):
                problems.add(None, f"{form} ({variant(key)!r}): {probe.field} stayed {after!r}")
    problems.judge()


@case("heartbeat.idempotency.concurrent-retry", level=Level.MUST, spec=RETRIES, needs=("heartbeat",))
async def concurrent_retry_runs_once(mcp: McpTarget, details: dict) -> None:
    """Calls with one key in flight at once (two, then three) are executed once: every answer is that
    execution's (or a call is refused while the first runs)."""
    sid, key = new_session_id(), new_key()
    await mcp.ok_heartbeat(sid, status="active")
    first = await mcp.ok_heartbeat(sid, idempotencyKey=key, progressPercent=30)
    other = await mcp.ok_heartbeat(sid, progressPercent=30)
    replay = await mcp.heartbeat(sid, idempotencyKey=key, progressPercent=30)
    fields = sorted(execution_fields(first.data, other.data, replay.data)) if replay.succeeded else []
    details["execution_fields"] = fields
    if not fields:
        raise MissingInput(
            "two executions cannot be told apart by their results: no field differs between two calls with the "
            "same arguments under different keys and agrees between a call and its retry"
        )
    for burst in (2, 3):
        key = new_key()
        replies: list[ToolReply] = []

        async def send(key: str = key, replies: list[ToolReply] = replies) -> None:
            replies.append(await mcp.heartbeat(sid, idempotencyKey=key, progressPercent=30))

        async with anyio.create_task_group() as tg:
            for _ in range(burst):
                tg.start_soon(send)
        answered = [r for r in replies if r.succeeded]
        details[f"answers to {burst}"] = [r.data if r.succeeded else r.describe() for r in replies]
        if not answered:
            raise NotTestable(f"all {burst} calls were answered with errors: {replies[0].describe()}")
        first = leaves(answered[0].data)
        for other in answered[1:]:  # one answered alone: the others were refused while it ran
            b = leaves(other.data)
            differ = [p for p in fields if not same(first.get(p, ABSENT), b.get(p, ABSENT))]
            if differ:
                raise Violation(
                    f"{burst} calls with one idempotencyKey, in flight at once, were executed more than once: their "
                    f"answers differ at {', '.join(differ)} (which tells one execution from another)",
                    expected="one execution: every answer alike, or the others refused while the first runs",
                    observed={p: (first.get(p), b.get(p)) for p in differ},
                )


@case("heartbeat.idempotency.key-across-sessions", level=Level.MUST, spec=KEY, needs=("heartbeat",))
async def key_reused_in_another_session(mcp: McpTarget, details: dict) -> None:
    """A key used in one session, then in another (by the same caller, and by caller B where the run
    has one), is not answered from the first session's result: the second call is applied to its own
    session, or refused (keys unique everywhere), and never shows the first session."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    key = new_key()
    first_sid = new_session_id()
    before, written = probe.values(2)
    await mcp.ok_heartbeat(first_sid, idempotencyKey=key, **probe.write(written))
    problems = Problems.listed(
        "the call applied to its own session, or refused; never the other session's result",
        lead="a key used in one session, reused in another, was answered from the first session's result: ",
    )

    async def judge(who: str, caller: McpTarget) -> None:
        sid = new_session_id()
        await caller.ok_heartbeat(sid, **probe.write(before))
        reply = await caller.heartbeat(sid, idempotencyKey=key, **probe.write(written))
        shown = first_sid in json.dumps(reply.reply.result if reply.reply.ok else reply.reply.error)
        if shown:
            problems.add(
                None, f"{who}: the answer names the first session {first_sid!r} ({reply.describe()})"
            )
        if reply.rejected:
            return  # the key is taken everywhere: refused, which applies nothing
        now = await probe.read(caller, sid)
        if not same(now, written):
            problems.add(
                None,
                f"{who}: answered ({reply.describe()}) but not applied: its session's {probe.field} stayed {now!r}",
            )

    with problems.kept(details):  # caller B's session refused keeps what the same caller's showed
        await judge("the same caller, another session", mcp)
        if mcp.harness.config.transport == "http" and mcp.options.other_headers is not None:
            async with mcp.other_caller() as other:
                await judge("caller B, a session of its own", other)
    problems.judge()


@case(
    "heartbeat.idempotency.key-reuse-different-args", level=Level.SHOULD, spec=RETRIES, needs=("heartbeat",)
)
async def key_reuse_with_other_arguments(mcp: McpTarget, details: dict) -> None:
    """The same key with different arguments is reported as an error, not silently accepted,
    whichever call came first (a comparison that holds one way only fails the second)."""
    for first, second in ((10, 90), (90, 10)):
        sid, key = new_session_id(), new_key()
        await mcp.ok_heartbeat(sid, idempotencyKey=key, status="active", progressPercent=first)
        reply = await mcp.heartbeat(sid, idempotencyKey=key, status="blocked", progressPercent=second)
        if not reply.rejected:
            raise Violation(
                f"the same idempotencyKey with different arguments (progressPercent {first}, then {second}) "
                "was accepted silently",
                expected="an error: the key was already used with other arguments",
                observed=reply.describe(),
            )


# Separators a store joins a composite key with ("hb:<caller>:<session>:<key>", a path, a
# delimited string), and none at all (plain concatenation).
JOINERS = (":", "/", "|", ".", "-", "_", "")


@case("heartbeat.idempotency.joined-keys", level=Level.MUST, spec=KEY, needs=("heartbeat",))
async def keys_joined_with_their_session(mcp: McpTarget, details: dict) -> None:
    """Two sessions whose (session id, idempotency key) pairs join to one string under a common
    separator (`:`, `/`, `|`, `.`, `-`, `_`, or none: "s:1" with key "k" and "s" with key "1:k")
    stay apart: a fresh heartbeat of the second is applied to its own session, never refused or
    answered as a retry of the first, and the first keeps what it was told. A separator the server
    refuses in a session id or a key (asked first, on sessions of their own) is left out."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    values = iter(probe.values(2 * len(JOINERS)))
    tried: list[str] = []  # the separators, as repr
    left_out: dict[str, str] = {}
    details.update({"separators tried": tried, "separators left out": left_out})
    problems = Problems.listed(
        "each (session, key) pair its own call: applied to its own session",
        lead="two sessions whose session id and key join to the same string were taken for one call: ",
        limit=3,
    )
    with problems.kept(details):  # a later separator's session refused keeps what an earlier one showed
        for joiner in JOINERS:
            stem, key = f"conformance{uuid.uuid4().hex[:10]}", f"k{uuid.uuid4().hex[:10]}"
            first, second = f"{stem}{joiner}1", stem  # first + joiner + key == second + joiner + its key
            first_key, second_key = key, f"1{joiner}{key}"
            first_value, second_value = next(values), next(values)
            taken = await mcp.heartbeat(first, **probe.write(first_value))
            if taken.rejected:
                left_out[repr(joiner)] = f"a session id with it is refused ({taken.describe()})"
                continue
            control = await mcp.heartbeat(new_session_id(), idempotencyKey=f"1{joiner}{new_key()}")
            if control.rejected:
                left_out[repr(joiner)] = f"a key with it is refused ({control.describe()})"
                continue
            tried.append(repr(joiner))
            await mcp.ok_heartbeat(second, **probe.write(first_value))
            await mcp.ok_heartbeat(first, idempotencyKey=first_key, **probe.write(first_value))
            reply = await mcp.heartbeat(second, idempotencyKey=second_key, **probe.write(second_value))
            pair = f"{first!r} with key {first_key!r}, then {second!r} with key {second_key!r}"
            if reply.rejected:
                problems.add(None, f"{pair}: the second, a fresh call, was refused ({reply.describe()})")
                continue
            if first in json.dumps(reply.reply.result):
                problems.add(
                    None, f"{pair}: the second was answered with the first session ({reply.describe()})"
                )
            now = await probe.read(mcp, second)
            if not same(now, second_value):
                problems.add(
                    None, f"{pair}: the second was answered but not applied: {probe.field} reads {now!r}"
                )
            kept = await probe.read(mcp, first)
            if same(kept, first_value):
                continue
            # No state at all, one other session used since: what a session cap of one does to
            # plain sessions too.
            if not same(kept, second_value) and await probe.forgets_after(mcp, 1):
                details.setdefault("forgotten, as plain sessions are", []).append(
                    f"{pair}: {probe.field} reads {kept!r}"
                )
                continue
            problems.add(None, f"{pair}: the first session's {probe.field} changed to {kept!r}")
    problems.judge()
    if not tried:
        raise NotTestable(
            "the server refuses every separator the case joins with in a session id or a key: "
            + "; ".join(f"{j}: {why}" for j, why in left_out.items())
        )


# Seconds either side of a wall-clock boundary at which the first call and its retry are sent: room
# for the server's clock to be that far from the suite's (NTP keeps them far closer).
STRADDLE = 0.25
# The profiles that afford a wait of up to a minute for the minute's boundary. The others never
# straddle it, not even when it comes near by chance: a verdict must not hang on the time of day.
MINUTE_PROFILES = ("thorough",)


@case(
    "heartbeat.idempotency.retry-across-clock",
    level=Level.MUST,
    spec=RETRIES,
    needs=("heartbeat",),
    slow=True,
)
async def retry_across_a_clock_boundary(mcp: McpTarget, details: dict) -> None:
    """A retry sent just after a wall-clock boundary its first call came just before is not applied
    again: the next second's boundary in every profile, and the minute's in the thorough profile (a
    key's memory does not end when the clock turns)."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    now = time.time()
    minute = _next_boundary(60.0, now + 2 * STRADDLE)
    units: list[tuple[str, float | None]] = [("second", None)]
    if mcp.harness.config.profile in MINUTE_PROFILES:
        units = [("minute", minute), *units]
    else:
        details["minute"] = "not straddled (a wait of up to 60 s): the thorough profile straddles it"
    straddled: dict[str, str] = {}
    details["straddled"] = straddled
    for name, fixed in units:
        # A first call answered only after the turn straddles nothing: the next second's boundary
        # again, three times at most (a loaded machine or a slow server).
        turn = fixed or _next_boundary(1.0, time.time() + 2 * STRADDLE)
        straddle = await _straddle(mcp, probe, turn)
        for _ in range(0 if fixed else 2):
            if straddle.answered < turn:
                break
            turn = _next_boundary(1.0, time.time() + 2 * STRADDLE)
            straddle = await _straddle(mcp, probe, turn)
        straddled[name] = straddle.shown
        if straddle.refused:
            continue  # not applied either
        if not same(straddle.after, straddle.later):
            raise Violation(
                f"a retry sent just after the wall clock's {name} turned ({straddle.stamp} UTC), of a call answered "
                f"just before it, was applied a second time: {probe.field} {straddle.first!r} (key K), "
                f"{straddle.later!r}, then the retry of K, and the session's {probe.field} is {straddle.after!r} "
                f"(results kept per {name} of the clock?)",
                expected=f"{probe.field} {straddle.later!r} (the retry changes nothing, whenever it comes)",
                observed=straddle.after,
            )


@dataclass
class Straddle:
    first: Any
    later: Any
    answered: float  # when the first call's answer came
    stamp: str
    shown: str
    after: Any  # the value read after the retry
    refused: bool  # the retry was refused (nothing read)


async def _straddle(mcp: McpTarget, probe: StateProbe, turn: float) -> Straddle:
    """A call with key K STRADDLE s before ``turn`` (a new session's, begun just before: a wait of
    a minute outlasts a short idle time to live), another call, then K's retry STRADDLE s after."""
    sid, key = new_session_id(), new_key()
    first, later = probe.values(2)
    await anyio.sleep(max(0.0, turn - 2 * STRADDLE - time.time()))
    await mcp.ok_heartbeat(sid, **probe.write(later))
    await anyio.sleep(max(0.0, turn - STRADDLE - time.time()))
    await mcp.ok_heartbeat(sid, idempotencyKey=key, **probe.write(first))
    answered = time.time()
    await mcp.ok_heartbeat(sid, **probe.write(later))
    await anyio.sleep(max(0.0, turn + STRADDLE - time.time()))
    retry = await mcp.heartbeat(sid, idempotencyKey=key, **probe.write(first))
    stamp = time.strftime("%H:%M:%S", time.gmtime(turn))
    shown = f"the first call answered {turn - answered:.3f} s before {stamp} UTC, the retry sent {time.time() - turn:.3f} s after it"
    after = None if retry.rejected else await probe.read(mcp, sid)
    return Straddle(first, later, answered, stamp, shown, after, retry.rejected)


def _next_boundary(unit: float, after: float) -> float:
    """The first multiple of ``unit`` seconds of the epoch at or after ``after``."""
    return math.ceil(after / unit) * unit

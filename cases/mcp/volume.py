"""MCP `session_heartbeat` under volume and repetition: many pending instructions at once, the same
text twice, all within a second or two.

"Pending human instructions are delivered" holds for every one of them: a queue that keeps a
fixed number and silently drops the oldest, or that takes the same text for the same instruction
(an id derived from a hash of the text, a set of texts), breaks it. A queue may be bounded: an
operator hook that refuses an instruction (exit code, HTTP 4xx) says so to the operator, and an
instruction refused is not expected.
"""

from __future__ import annotations

import time
import uuid

import anyio

from conformance.core.outcomes import MissingInput, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.target import Instruction, McpTarget, carries, new_session_id

# "Pending human instructions are delivered automatically; unacknowled…"
DELIVERY = requirement("mcp-session-heartbeat-2025-06-18", "delivery")
PENDING = 120  # more than a 100-entry buffer holds
AT_ONCE = 8  # operator hook calls in flight together
THOROUGH_BUDGET = 60.0  # seconds of search a profile has for a command hook to enqueue them all
MAX_CALLS = 4 * PENDING  # heartbeats a drain may take (pages, and instructions that come late)
# Heartbeats of a stated allowance kept from the pages, for the waits of an instruction that comes late.
ALLOWANCE_SPARE = 4


@case("heartbeat.volume.many-pending", level=Level.MUST, spec=DELIVERY, needs=("heartbeat",), slow=True)
async def many_pending_instructions(mcp: McpTarget, details: dict) -> None:
    """120 instructions enqueued for one session within a second or two, one of their texts twice:
    acknowledging each page while following its cursor delivers every one, the repeated text as two
    instructions (two ids). Under a request allowance the user stated (--mcp-request-limit), as
    many as the session's heartbeats can drain at the server's page size."""
    mcp.require_instruct()
    _require_cheap_hook(mcp)
    sid = new_session_id()
    await mcp.ok_heartbeat(sid, status="active")
    tag = uuid.uuid4().hex[:8]
    texts = [f"conformance volume {n} {tag}" for n in range(PENDING - 1)]
    twice = f"conformance volume twice {tag}"
    refused: list[str] = []
    started = time.monotonic()
    calls = None  # heartbeats the drain may spend: no allowance stated, no bound but MAX_CALLS
    if mcp.options.request_limit is not None:
        # The first batch shows the page size; the volume is what the allowance left can drain.
        await _enqueue_all(mcp, sid, texts[:AT_ONCE], refused)
        page = await mcp.ok_heartbeat(sid, acknowledgedInstructionIds=[])
        size = max(1, len(mcp.instructions(page)))
        calls = mcp.options.request_limit - 2
        fits = size * (calls - ALLOWANCE_SPARE)
        details["request allowance"] = (
            f"{mcp.options.request_limit} heartbeats a session, pages of {size}"
            + ("" if mcp.cursor(page) else " or more")
            + f": {min(fits, PENDING + 1)} instructions enqueued"
        )
        if fits < AT_ONCE + 2:
            raise MissingInput(
                f"a request allowance of {mcp.options.request_limit} heartbeats, with pages of {size}, drains "
                f"fewer than {AT_ONCE + 2} instructions: too few to judge a volume"
            )
        texts = texts[: min(fits, PENDING + 1) - 2]
        first, rest = texts[:AT_ONCE], texts[AT_ONCE:]
    else:
        first, rest = [], texts
    # The repeated text in the middle, so a queue that drops the oldest or refuses the newest
    # keeps both copies.
    half = max(0, len(texts) // 2 - len(first))
    order = [*rest[:half], twice, twice, *rest[half:]]
    await _enqueue_all(mcp, sid, order, refused)
    enqueued = len(first) + len(order)
    details["enqueued"] = f"{enqueued - len(refused)} of {enqueued} in {time.monotonic() - started:.2f} s"
    if twice in refused:
        raise MissingInput(
            f"the operator hook refused the repeated text, so its delivery cannot be judged: {refused[:3]}"
        )
    expected = [t for t in texts if t not in refused]
    items = await _drain_acknowledging(mcp, sid, [*expected, twice], enqueued - len(refused), calls)
    missing = [t for t in expected if not any(carries(i, t) for i in items)]
    repeated = {i.id for i in items if carries(i, twice)}
    details["delivered"] = f"{len(items)} items, the repeated text under {len(repeated)} id(s)"
    problems = []
    if missing:
        problems.append(
            f"{len(missing)} of {len(expected)} instructions never delivered (the first missing: "
            f"{', '.join(repr(t) for t in missing[:3])})"
        )
    if len(repeated) < 2:
        problems.append(
            f"the text enqueued twice was delivered as {len(repeated)} instruction(s), not two"
            + (f" (id {next(iter(repeated))!r})" if repeated else "")
        )
    if problems:
        raise Violation(
            "; ".join(problems) + f", after {enqueued - len(refused)} enqueues accepted by the operator hook",
            expected="every instruction enqueued and accepted is delivered, each enqueue of one text as an "
            "instruction of its own",
            observed={"missing": missing[:10], "ids of the repeated text": sorted(repeated)[:4]},
        )


async def _enqueue_all(mcp: McpTarget, sid: str, texts: list[str], refused: list[str]) -> None:
    for n in range(0, len(texts), AT_ONCE):
        async with anyio.create_task_group() as tg:
            for text in texts[n : n + AT_ONCE]:
                tg.start_soon(_enqueue, mcp, sid, text, refused)


def _require_cheap_hook(mcp: McpTarget) -> None:
    """A command hook starts a process per instruction (a quarter of a second each on a loaded
    machine): the profiles that search for seconds (ci, smoke) use this case only with a URL hook."""
    from conformance.core.profiles import PROFILES

    profile = PROFILES[mcp.harness.config.profile]
    if mcp.options.instruct_url is None and profile.budget < THOROUGH_BUDGET:
        raise MissingInput(
            f"enqueues {PENDING} instructions, one --instruct-cmd process each, too many for the {profile.name} "
            "profile's budget: pass an --instruct-url (the server's operator endpoint), or run --profile thorough"
        )


async def _enqueue(mcp: McpTarget, sid: str, text: str, refused: list[str]) -> None:
    if await mcp.instruct(sid, text, refusable=True) is not None:
        refused.append(text)


async def _drain_acknowledging(
    mcp: McpTarget, sid: str, texts: list[str], count: int, calls: int | None = None
) -> list[Instruction]:
    """The agent's loop: each answer's instructions acknowledged by the next heartbeat (following
    the cursor when one comes), until ``count`` items carrying these texts came or the delivery
    wait after the last one passed without another. With ``calls`` (the session's allowance left),
    at most that many heartbeats, the waits for a late instruction spread over the delivery wait."""
    items: list[Instruction] = []
    acks: list[str] = []
    cursor: str | None = None
    deadline = time.monotonic() + mcp.delivery_wait
    pause = 0.1 if calls is None else max(0.1, mcp.delivery_wait / ALLOWANCE_SPARE)
    for _ in range(MAX_CALLS if calls is None else calls):
        fields = {"acknowledgedInstructionIds": acks} | ({"instructionCursor": cursor} if cursor else {})
        reply = await mcp.ok_heartbeat(sid, **fields)
        page = [i for i in mcp.instructions(reply) if i.id not in {a.id for a in items}]
        items += page
        acks, cursor = [i.id for i in mcp.instructions(reply)], mcp.cursor(reply)
        if page:
            deadline = time.monotonic() + mcp.delivery_wait
        done = sum(1 for i in items if any(carries(i, t) for t in texts)) >= count
        if (done and cursor is None) or time.monotonic() > deadline:
            break
        if not page and cursor is None:
            await anyio.sleep(pause)
    return items

"""HTTP status: what probing must not do: answer another caller from the owner's probe, resolve
a parked turn, or mix callers up when probes arrive together.

Spec: cases/revisions/sources/agentscope-2.0.4-session-status.txt (404 for a session that is not the caller's, in every state) and
RFC 9110's safe methods. A hidden effect on the session is read through its messages and listing
entry, calibrated as in ``http.safe.no-side-effects`` (read twice, then a known write read back).
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx
from conformance.cases.http.states import driven_session, parked_for_permission
from conformance.cases.http.status import (
    HTTP_CAPABILITY,
    NOT_FOUND,
    SAFE,
    Unknown404,
    shown_parts,
    wait_until,
)

from conformance.core.outcomes import MissingInput, NotTestable, Problems, Violation
from conformance.core.registry import Level, case
from conformance.targets.http.calibration import differing, listed, parts_of
from conformance.targets.http.target import HttpStatusTarget, StatusProbe


@case(
    "http.isolation.after-owner-probe",
    level=Level.MUST,
    spec=NOT_FOUND,
    needs=HTTP_CAPABILITY,
    rules=("other-user", "wrong-agent"),
)
async def hidden_right_after_the_owner(http: HttpStatusTarget, details: dict) -> None:
    """Right after the owner's probe, another user and a wrong agent_id still get the
    unknown-session 404 (no answer is reused across callers)."""
    agent_id, sid = await http.new_session()
    unknown = await Unknown404.ask(http, agent_id, http.other_user_id)
    owner = await http.status(sid, agent_id)
    theirs = await http.status(sid, agent_id, user_id=http.other_user_id)
    again = await http.status(sid, agent_id)
    wrong_agent = await http.status(sid, http.other_agent_id(agent_id))
    details.update(owner=owner.describe(), other_user=theirs.describe(), wrong_agent=wrong_agent.describe())
    if owner.code != 200 or again.code != 200:
        raise MissingInput(f"the owner's own probe was answered {owner.describe()}: see http.status.shape")
    problems = []
    telling = (
        theirs.code == 404
        and unknown.consistent
        and await unknown.telling(
            http, agent_id, http.other_user_id, theirs, sid, prepare=lambda: http.status(sid, agent_id)
        )
    )
    if theirs.code != 404 or telling:
        problems.append(
            ("other-user", f"another user, right after the owner's probe, got {theirs.describe()}")
        )
    elif not unknown.comparable:
        details["body_not_compared"] = (
            "the unknown-session answer varies in every field from one unknown id to the next"
        )
    if wrong_agent.code != 404:
        problems.append(
            ("wrong-agent", f"a wrong agent_id, right after the owner's probe, got {wrong_agent.describe()}")
        )
    if problems:
        raise Violation(
            "; ".join(p for _, p in problems),
            expected=f"the unknown-session answer: {unknown.probe.describe()}",
            observed=[p for _, p in problems],
            rule=problems[0][0],
        )


@case("http.safe.parked-stays-parked", level=Level.MUST, spec=SAFE, needs=HTTP_CAPABILITY, slow=True)
async def probes_leave_a_parked_turn_alone(http: HttpStatusTarget, details: dict) -> None:
    """60 probes (the owner's, another user's, a wrong agent_id's) of a session waiting for
    permission leave it waiting: still awaiting_permission, its messages and listing entry as
    they were, and the permission request still answerable."""
    agent_id, sid = await driven_session(http, "a session waiting for permission")
    await parked_for_permission(http, agent_id, sid)
    before = await http.snapshot(agent_id, sid)
    again = await http.snapshot(agent_id, sid)
    drift = differing(before, again)
    seen = []
    for _ in range(20):
        seen.append((await http.status(sid, agent_id)).status)
        await http.status(sid, agent_id, user_id=http.other_user_id)
        await http.status(sid, http.other_agent_id(agent_id))
    after = await http.snapshot(agent_id, sid)
    settled = await http.snapshot(agent_id, sid)
    drift |= differing(after, settled)
    answer = await http.driver.confirm(http.user_id, agent_id, sid, allow=False)
    observed = await shown_parts(http, settled, lambda: http.snapshot(agent_id, sid), drift)
    details.update(seen=sorted(set(map(str, seen))), observed=sorted(observed), answer=answer.status_code)
    changed = sorted(p for p in differing(again, after) - drift if parts_of({p}) <= observed)
    moved = [s for s in seen if s != "awaiting_permission"]
    problems = Problems(
        lambda shown: Violation(
            "after 60 status probes of a session waiting for permission: "
            + "; ".join(p for _, p in shown)
            + (
                f"; the answer to the permission request then got HTTP {answer.status_code}"
                if answer.status_code >= 300
                else ""
            ),
            expected="still awaiting_permission, its messages and listing entry unchanged, the request answerable",
            observed={p: {"before": again.get(p), "after": after.get(p)} for p in changed[:10]} or moved,
        )
    )
    if moved:
        problems.add(
            None, f"the owner's probes read {moved[0]!r} while nothing but probes touched the session"
        )
    if changed:
        problems.add(None, f"{listed(changed)} changed")
    with problems.kept(details):
        await http.settle(agent_id, sid)
    problems.judge()
    if answer.status_code >= 300:
        await _answer_unprobed(http, agent_id, answer, details)


async def _answer_unprobed(
    http: HttpStatusTarget, agent_id: str, refused: httpx.Response, details: dict
) -> None:
    """After the answer to a probed session's permission request was refused: the same answer on
    a session parked the same way that no probe ever asked (its messages show it parked). Taken
    there, the probes made the request unanswerable; refused there too, the refusal is the
    answering route's own (outside the spec)."""
    what = f"answering the permission request was refused (HTTP {refused.status_code} {refused.text[:200]})"
    _, control = await http.new_session()
    await http.chat(agent_id, control, "[permission] write the probe file")

    async def parked() -> bool:
        calls = await http.waiting_calls(agent_id, control)
        return bool(calls) and any(c.get("state") == "asking" for c in calls)

    if not await wait_until(parked, http.settle_time):
        raise NotTestable(
            f"{what} though the probes changed nothing the suite could see, and a control session never parked"
        )
    unprobed = await http.driver.confirm(http.user_id, agent_id, control, allow=False)
    details["unprobed_answer"] = unprobed.status_code
    if unprobed.status_code >= 300:
        raise MissingInput(
            f"{what}, and so was the same answer on a session that no probe asked (HTTP {unprobed.status_code} "
            f"{unprobed.text[:200]}): the answering route refuses it either way"
        )
    await http.settle(agent_id, control)
    raise Violation(
        f"after 60 status probes of a session waiting for permission, {what}, while on a session parked the same "
        "way that no probe asked it was taken: the probes left the request unanswerable",
        expected="the permission request still answerable after the probes",
        observed=f"HTTP {refused.status_code} {refused.text[:300]}",
    )


@case(
    "http.concurrency.parallel-probes",
    level=Level.MUST,
    spec=NOT_FOUND,
    needs=HTTP_CAPABILITY,
    rules=("owner", "others"),
)
async def probes_at_once(http: HttpStatusTarget, details: dict) -> None:
    """16 probes sent together (the owner's and another user's, interleaved): each owner probe
    gets the session's status, each of the other user's the 404."""
    agent_id, sid = await http.new_session()
    baseline = await http.status(sid, agent_id)
    if baseline.code != 200:
        raise MissingInput(f"the owner's own probe was answered {baseline.describe()}: see http.status.shape")
    callers: list[dict[str, Any]] = []
    for _ in range(8):  # a wrong agent_id is left to the sequential cases: here the callers are mixed
        callers += [
            {"who": "owner", "agent_id": agent_id},
            {"who": "another user", "agent_id": agent_id, "user_id": http.other_user_id},
        ]
    answers: list[tuple[str, StatusProbe]] = []

    async def probe(caller: dict[str, Any]) -> None:
        got = await http.status(sid, caller["agent_id"], user_id=caller.get("user_id"))
        answers.append((caller["who"], got))

    async with anyio.create_task_group() as tg:
        for caller in callers:
            tg.start_soon(probe, caller)
    owner = [p for who, p in answers if who == "owner"]
    others = [(who, p) for who, p in answers if who != "owner"]
    details.update(
        owner=sorted({p.describe() for p in owner}),
        others=sorted({f"{w}: {p.describe()}" for w, p in others}),
    )
    leaks = [("others", f"{who} got {p.describe()}") for who, p in others if 200 <= p.code < 300]
    mine = [
        ("owner", f"the owner got {p.describe()}")
        for p in owner
        if p.code != 200 or p.status != baseline.status
    ]
    refused = [
        ("others", f"{who} got {p.describe()}") for who, p in others if p.code != 404 and p.code >= 300
    ]
    problems = leaks + mine + refused  # a leak first, then the owner's own answers
    if problems:
        raise Violation(
            "among 16 probes sent together: " + "; ".join(list(dict.fromkeys(p for _, p in problems))[:6]),
            expected=f"the owner: {baseline.describe()} every time; the others: HTTP 404",
            observed=[p for _, p in problems][:12],
            rule=problems[0][0],
        )

"""Consistency between methods: what each status answer implies, the other methods then do.

`inactive` means the agent knows the session and can resume it; after a resume it is in
memory, so `active`; after a delete the agent no longer knows it. Each case asks status, then
checks its answer against session/resume, session/prompt and each other.
"""

from collections.abc import Awaitable, Callable

from conformance.cases.acp import spec
from conformance.cases.acp.implied import answer_of, check_implied, forgets_closed, forgot_on_may_path

from conformance.core import revisions
from conformance.core.outcomes import Info, NotApplicable, NotTestable, Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.expect import SESSION_NOT_FOUND, show
from conformance.targets.acp.target import AcpTarget
from conformance.transport.peer import Reply

FORGOT = (
    "the agent freed the session on close (resume answers -32002) while status takes the MAY path "
    "(inactive for any session not in memory), so no closed session can be resumed"
)


@case(
    "status.consistency.inactive-resumable",
    level=Level.MUST,
    spec=spec.RESUMABLE,
    needs=("status", "close", "resume-or-load"),
    rules=("unknown-not-resumable",),  # -32002 for a session resume brings back: the unknown sentence
)
async def inactive_means_resumable(acp: AcpTarget, details: dict) -> None:
    """A closed session status calls inactive can be resumed (on the RFD's MAY path, resume may
    fail with -32002 only because the session does not exist)."""
    sid = await acp.new_session()
    await acp.prompt(sid, "remember this")
    await acp.close(sid)
    reply = await acp.status(sid)
    details["status_after_close"] = reply.describe()
    details["answer"] = await check_implied(
        acp, sid, reply, "after session/close", unknown_rule="unknown-not-resumable"
    )


@case(
    "status.consistency.resume-makes-active",
    level=Level.MUST,
    spec=spec.ACTIVE,
    needs=("status", "close", "resume-or-load"),
    rules=("known-while-resuming",),  # -32002 while the resume reads the session: the unknown sentence
)
async def resumed_session_is_active(acp: AcpTarget, details: dict) -> None:
    """Right after a successful resume the session is in memory: status says active (a status that
    still says inactive while the session serves prompts answers from a stale record). Status
    calls sent right behind the resume, in flight while it reads the session, may answer from
    before it or after it, but the agent knows the session all along: never -32002."""
    sid = await acp.new_session()
    await acp.prompt(sid, "remember this")
    await acp.close(sid)
    if await forgets_closed(acp, sid):  # also a status asked while inactive: a cached answer would stick
        raise NotApplicable(
            "the agent keeps no session once closed (it is not found: -32002), so none can be resumed"
        )
    before = await acp.status(sid)
    back, during = await _resume_beside_statuses(acp, sid)
    details["during_resume"] = [answer_of(r) for r in during]
    if forgot_on_may_path(back):
        raise NotApplicable(FORGOT)
    if not back.ok:
        raise NotTestable(f"resuming a session closed a moment ago failed: {back.describe()}")
    _known_while_resuming(before, during, details)
    after = await acp.status(sid)
    details["after"] = after.describe()
    if answer_of(after) == "active":
        return
    prompted = await acp.prompt(sid, "am I in memory?")
    again = await acp.status(sid)
    details["after_prompt"] = again.describe()
    if prompted.ok and answer_of(again) != "active":
        raise Violation(
            f"after a successful resume, status said {show(after.result or after.error)}, and still "
            f"{show(again.result or again.error)} after the session served a prompt: status answers from a record "
            "the resume did not update",
            expected=revisions.word("active"),
            observed={
                "after resume": after.describe(),
                "prompt": prompted.describe(),
                "after prompt": again.describe(),
            },
        )


# Status calls sent right behind a resume: they reach an agent whose storage takes its time while
# the resume reads the session.
BESIDE_RESUME = 4


async def _resume_beside_statuses(acp: AcpTarget, sid: str) -> tuple[Reply, list[Reply]]:
    """The resume (or load) on the wire first, then status calls for the session, all in flight at
    once: the resume's reply, and the status replies."""

    async def reopen() -> Reply:
        return await acp.reopen(sid)

    ask: list[Callable[[], Awaitable[Reply]]] = [lambda: acp.status(sid)] * BESIDE_RESUME
    back, *during = await acp.together(reopen, *ask)
    return back, during


def _known_while_resuming(before: Reply, during: list[Reply], details: dict) -> None:
    """A -32002 among status calls in flight with a resume that succeeded, of a session status
    called known (inactive or active) just before: the agent knew the session all along."""
    if answer_of(before) not in ("active", "inactive"):
        details["unjudged"] = {
            "known-while-resuming": f"status did not call the closed session known before the resume: {before.describe()}"
        }
        return
    unknown = [r for r in during if answer_of(r) == "unknown"]
    if unknown:
        raise Violation(
            f"{len(unknown)} of {len(during)} status calls sent right behind a session/resume (or load) of a session "
            f"status had just called {answer_of(before)} answered -32002, and the resume then succeeded: the agent "
            "knew the session while it resumed it, yet reported it unknown",
            expected=f"{revisions.word('inactive')} or {revisions.word('active')}, never -32002",
            observed={"before": before.describe(), "beside the resume": [r.describe() for r in during]},
            rule="known-while-resuming",
        )


@case("status.consistency.after-delete", level=Level.MUST, spec=spec.UNKNOWN, needs=("status", "delete"))
async def deleted_session_is_unknown(acp: AcpTarget, details: dict) -> None:
    """After session/delete the agent does not know the session: -32002 (or an answer every other
    method agrees with)."""
    live = await acp.new_session()
    await acp.prompt(live, "to be deleted while in memory")
    targets = [("a session in memory", live)]
    if acp.advertises("close"):
        idle = await acp.new_session()
        await acp.prompt(idle, "to be deleted")
        await acp.close(idle)
        if not await forgets_closed(acp, idle):  # a session the agent no longer knows has nothing to delete
            targets.append(("a closed session", idle))
    answers = details["answers"] = {}
    may_path: list[str] = []
    for label, sid in targets:
        deleted = await acp.call("session/delete", {"sessionId": sid})
        if label == "a closed session" and forgot_on_may_path(deleted):
            continue  # freed on close: nothing left to delete
        if not deleted.ok:
            raise NotTestable(f"session/delete of {label} failed: {deleted.describe()}")
        reply = await acp.status(sid)
        answers[label] = reply.describe()
        if not reply.ok and reply.code == SESSION_NOT_FOUND:
            continue
        try:
            await check_implied(acp, sid, reply, f"after session/delete of {label}")
        except Info as taken:
            may_path.append(taken.message)
    if may_path:
        raise Info(may_path[0])

"""What a status answer implies, checked against what the other methods then do.

Helpers for the cases (no case here). An answer is judged by consistency, not by an assumption
the spec does not make: `active` for an id means a prompt with that id works on the connection
that created it; `inactive` means resume works (or, on the RFD's MAY path, fails with -32002
because the session does not exist); -32002 means the agent does not know it, so it does not
resume. An agent that treats two spellings of an id as one session everywhere is consistent,
and passes; one whose status alone does is not.
"""

from __future__ import annotations

from conformance.core import revisions
from conformance.core.outcomes import Info, MissingInput, Violation
from conformance.targets.acp.expect import SESSION_NOT_FOUND, show
from conformance.targets.acp.target import AcpTarget
from conformance.transport.peer import Reply

__all__ = ["answer_of", "check_implied", "forgets_closed", "forgot_on_may_path"]


def answer_of(reply: Reply) -> str:
    """'active', 'inactive', 'unknown' (-32002), 'other:<word>' or 'error <code>'."""
    if not reply.ok:
        return "unknown" if reply.code == SESSION_NOT_FOUND else f"error {reply.code}"
    value = reply.result.get("status") if isinstance(reply.result, dict) else None
    return revisions.canonical(value) or f"other:{value}"


async def check_implied(
    acp: AcpTarget,
    session_id: str,
    reply: Reply,
    context: str,
    *,
    rule: str | None = None,
    unknown_rule: str | None = None,
) -> str:
    """Raise a Violation when what the other methods do contradicts the status answer; an Info
    when the answer took the MAY path. Returns the answer (see :func:`answer_of`). ``unknown_rule``:
    the rule a -32002 that resume contradicts breaks, where the case's own sentence is another."""
    answer = answer_of(reply)
    if answer == "active":
        await _active_takes_a_prompt(acp, session_id, reply, context, rule)
    elif answer == "inactive" and not acp.advertises("resume-or-load"):
        _inactive_without_resume(reply, context, rule)
    elif answer == "inactive":
        await _inactive_resumes(acp, session_id, reply, context, rule)
    elif answer == "unknown" and acp.advertises("resume-or-load"):
        await _unknown_does_not_resume(acp, session_id, reply, context, unknown_rule or rule)
    return answer


async def _active_takes_a_prompt(
    acp: AcpTarget, session_id: str, reply: Reply, context: str, rule: str | None
) -> None:
    prompted = await acp.prompt(session_id, "status said active")
    if prompted.ok:
        return
    # Calibration of the prompt probe: a backend that refuses every turn shows nothing.
    control = await acp.prompt(await acp.new_session(), "control")
    if not control.ok:
        raise MissingInput(
            f"{context}: session/prompt fails on a session just created too ({control.describe()}), "
            "so a failed prompt cannot show what status said"
        )
    raise Violation(
        f"{context}: status said {revisions.word('active')!r} (in memory), but session/prompt with that id "
        f"on the connection that created the session failed: {prompted.describe()}",
        expected="a session status calls active accepts session/prompt",
        observed={"status": reply.describe(), "prompt": prompted.describe()},
        rule=rule,
    )


def _inactive_without_resume(reply: Reply, context: str, rule: str | None) -> None:
    if revisions.current().may_inactive_for_unknown:
        return
    # Nothing resumes here to back the claim, and no MAY path allows it for a session the
    # agent does not have: this revision's unknown session gets -32002.
    raise Violation(
        f"{context}: status said {revisions.word('inactive')!r} (known, resumable), but the agent advertises "
        "neither session/resume nor session/load, and this revision has no MAY path: a session the Agent "
        "does not know gets -32002",
        expected="error -32002",
        observed=reply.describe(),
        rule=rule,
    )


async def _inactive_resumes(
    acp: AcpTarget, session_id: str, reply: Reply, context: str, rule: str | None
) -> None:
    back = await acp.reopen(session_id)
    if back.ok:
        return
    may = revisions.current().may_inactive_for_unknown
    if may and back.code == SESSION_NOT_FOUND:
        raise Info(
            f"{context}: status said {revisions.word('inactive')!r} and resume then failed with -32002: the "
            "MAY path (inactive for any session not in memory; the session does not exist)"
        )
    raise Violation(
        f"{context}: status said {revisions.word('inactive')!r} (known, resumable), but resuming it failed: "
        f"{back.describe()}",
        expected="resume succeeds" + (" (or fails with -32002 on the MAY path)" if may else ""),
        observed={"status": reply.describe(), "resume": back.describe()},
        rule=rule,
    )


async def _unknown_does_not_resume(
    acp: AcpTarget, session_id: str, reply: Reply, context: str, rule: str | None
) -> None:
    back = await acp.reopen(session_id)
    if back.ok:
        raise Violation(
            f"{context}: status said -32002 (the agent does not know the session), yet session/resume then "
            "resumed it",
            expected="resume fails: the agent does not know the session",
            observed={"status": reply.describe(), "resume": show(back.result)},
            rule=rule,
        )


async def forgets_closed(acp: AcpTarget, session_id: str) -> bool:
    """True when the agent keeps no session once it is closed: status says -32002 for it and
    resume agrees (the cases that need a closed session to resume are then n/a, not failures).
    A session status calls unknown that resume brings back is closed again and kept: the case goes
    on (status.consistency.inactive-resumable reports the contradiction). On the RFD's MAY path
    status says inactive for a session it forgot too: see :func:`forgot_on_may_path`."""
    reply = await acp.status(session_id)
    if reply.ok or reply.code != SESSION_NOT_FOUND:
        return False
    if not acp.advertises("resume-or-load") or not (await acp.reopen(session_id)).ok:
        return True
    await acp.close(session_id)
    return False


def forgot_on_may_path(reply: Reply) -> bool:
    """Whether a closed session's resume, load or delete answering -32002 only shows that the
    agent freed it on close: on the MAY path status says inactive for any session not in memory,
    and "a later session/resume will then fail with -32002 if the session does not exist"."""
    return revisions.current().may_inactive_for_unknown and not reply.ok and reply.code == SESSION_NOT_FOUND

"""Session identity: an id in another form, and the empty id, are not the session.

Session ids are opaque strings. A status that finds a session by a loosened id (case folded,
whitespace trimmed, Unicode-normalised, a prefix) answers for a session the client did not
ask about. The agent may treat two spellings as one session only if every method does.
"""

from conformance.cases.acp import spec
from conformance.cases.acp.implied import answer_of, check_implied

from conformance.core import revisions
from conformance.core.outcomes import Info, Violation
from conformance.core.registry import Level, case
from conformance.core.spellings import spellings
from conformance.targets.acp.expect import INVALID_PARAMS, SESSION_NOT_FOUND, show
from conformance.targets.acp.target import AcpTarget


@case("status.identity.id-variants", level=Level.MUST, spec=spec.UNKNOWN)
async def other_spellings_are_other_ids(acp: AcpTarget, details: dict) -> None:
    """Another spelling of a live session's id (case, whitespace, prefix, NFKC) is not that
    session: -32002, unless every method treats it as the same session."""
    sid = await acp.new_session()
    await acp.prompt(sid, "hello")
    seen = details["answers"] = {}
    may_path: list[str] = []
    unknown: list[tuple[str, str]] = []
    for label, other in spellings(sid).items():
        reply = await acp.status(other)
        seen[label] = answer_of(reply)
        if not reply.ok and reply.code == INVALID_PARAMS and other != other.strip():
            continue  # an id with control characters or padding refused as invalid: not a session either
        if not reply.ok and reply.code == SESSION_NOT_FOUND:
            unknown.append((label, other))
            continue
        try:
            await check_implied(acp, other, reply, f"the id with {label} ({other!r})")
        except Info as taken:
            may_path.append(taken.message)
            continue
        if seen[label] not in ("active", "inactive", "unknown"):
            raise Violation(
                f"status of the id with {label} ({other!r}) answered {reply.describe()}",
                expected="error -32002: no session has that id",
                observed=show(reply.result if reply.ok else reply.error),
            )
    if unknown and acp.advertises("persist"):
        await _unknown_spellings_stay_unknown(acp, unknown, details)
    if may_path:
        raise Info(f"{len(may_path)} spelling(s) took the MAY path; first: {may_path[0]}")


async def _unknown_spellings_stay_unknown(
    acp: AcpTarget, unknown: list[tuple[str, str]], details: dict
) -> None:
    """A spelling status calls unknown (-32002) is no session to resume or load either: the agent
    does not know it everywhere, or status's answer was not the truth."""
    for label, other in unknown:
        back = await acp.reopen(other)
        if not back.ok:
            continue
        control = await acp.reopen(acp.unknown_id())
        if control.ok:  # calibration: resume/load of any never-created id succeeds
            details["resume"] = "not consulted: resume/load of any never-created id succeeds"
            return
        raise Violation(
            f"status answered -32002 for the id with {label} ({other!r}), yet resume/load of it then succeeded: "
            "status called unknown an id the agent knows (or status created it)",
            expected="error -32002 from resume/load too",
            observed=back.describe(),
        )


@case("status.identity.empty-id", level=Level.MUST, spec=spec.UNKNOWN)
async def empty_id_is_no_session(acp: AcpTarget, details: dict) -> None:
    """sessionId "" names no session: -32002 (or -32602), never a session's status."""
    live = await acp.new_session()
    reply = await acp.status("")
    details["answer"] = reply.describe()
    if not reply.ok and reply.code in (SESSION_NOT_FOUND, INVALID_PARAMS):
        return
    if reply.ok and revisions.canonical(
        reply.result.get("status") if isinstance(reply.result, dict) else None
    ) == ("inactive"):
        await check_implied(acp, "", reply, 'the empty id ""')
        return
    raise Violation(
        f'status of the empty id "" answered {reply.describe()}, as if it named a session (the agent has {live!r} '
        "in memory)",
        expected="error -32002 (no session has the empty id) or -32602",
        observed=show(reply.result if reply.ok else reply.error),
    )

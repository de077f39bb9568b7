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
from conformance.core.spellings import ENCODED, LONG, forms, spellings
from conformance.targets.acp.expect import INVALID_PARAMS, SESSION_NOT_FOUND, show
from conformance.targets.acp.target import AcpTarget
from conformance.transport.peer import Reply


@case("status.identity.id-variants", level=Level.MUST, spec=spec.UNKNOWN)
async def other_spellings_are_other_ids(acp: AcpTarget, details: dict) -> None:
    """Another spelling of a live session's id (case, whitespace, prefix, NFKC, a non-ASCII letter
    added) is not that session: -32002, unless every method treats it as the same session."""
    sid = await acp.new_session()
    await acp.prompt(sid, "hello")
    seen = details["answers"] = {}
    may_path: list[str] = []
    unknown: list[tuple[str, str]] = []
    for label, other in spellings(sid).items():
        reply = await acp.status(other)
        seen[label] = answer_of(reply)
        if not reply.ok and reply.code == INVALID_PARAMS and (other != other.strip() or not other.isascii()):
            continue  # an id with control characters, padding or non-ASCII refused as invalid: not a session either
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


@case("status.identity.long-ids", level=Level.MUST, spec=spec.UNKNOWN, rules=("echoed-whole",))
async def ids_at_storage_limits(acp: AcpTarget, details: dict) -> None:
    """An id at a common storage limit or just past it (64, 255, 256, 1024, 4096 characters, and
    past 255 bytes in fewer characters of multi-byte text) that shares a live session's
    characters up to the limit (its first N characters, one more, or the id padded to N and N + 1)
    is not that session: -32002 echoing the id whole, or refused (-32602). A store that cuts ids at
    a limit makes two ids one session, in every method alike: cut is never the same id, so no
    consistency excuses it; a store that cannot take the id does not know it either."""
    live = await acp.new_session()
    await _forms_are_other_ids(acp, live, forms(live, LONG), "at a storage limit", details)


@case("status.identity.encoded-ids", level=Level.MUST, spec=spec.UNKNOWN, rules=("echoed-whole",))
async def encoded_ids(acp: AcpTarget, details: dict) -> None:
    """A form of a live session's id that a layer reading ids as URLs or paths would decode or
    resolve to it (a character percent-encoded once or twice, every character encoded, behind a
    dot segment, plain or encoded, a trailing slash, the other Unicode normalisation form) is not
    that session: -32002 echoing the id exactly, or refused (-32602). Session ids are opaque
    strings, never decoded: no consistency between methods excuses it."""
    live = await acp.new_session()
    await _forms_are_other_ids(acp, live, forms(live, ENCODED), "encoded, or as a path", details)


async def _forms_are_other_ids(
    acp: AcpTarget, live: str, asked: dict[str, str], how: str, details: dict
) -> None:
    """Each form is another id: -32002 with the form itself in data.sessionId, -32602, or the RFD's
    MAY path (inactive, and resume then fails with -32002); never the live session's status."""
    answers = details["answers"] = {}
    may_path: list[str] = []
    for label, other in asked.items():
        reply = await acp.status(other)
        answers[label] = answer_of(reply)
        if _refused(reply):
            continue
        if not reply.ok and reply.code == SESSION_NOT_FOUND:
            data = (reply.error or {}).get("data")
            echoed = data.get("sessionId") if isinstance(data, dict) else None
            if echoed != other:
                raise Violation(
                    f"for the live id {how} ({label}), the -32002 error's data.sessionId is "
                    + (
                        f"{len(echoed)} characters, not the {len(other)} asked for"
                        if isinstance(echoed, str)
                        else "missing"
                    )
                    + (": the id came back cut or decoded" if isinstance(echoed, str) else ""),
                    expected={"sessionId": other[:300]},
                    observed=show(data),
                    rule="echoed-whole",
                )
            continue
        if answers[label] == "inactive":
            context = f"the live id {how} ({label}: {other[:80]!r})"
            if revisions.current().may_inactive_for_unknown and not acp.advertises("resume-or-load"):
                may_path.append(
                    f"{context}: status said {revisions.word('inactive')!r}, with no resume to try"
                )
                continue  # the RFD's MAY path, with nothing to tell it from a session's answer
            try:  # the RFD's MAY path, where the id names no session; a resume that succeeds names one
                await check_implied(acp, other, reply, context)
            except Info as taken:
                may_path.append(taken.message)
                continue
            if (await acp.reopen(acp.unknown_id())).ok:  # calibration: resume creates any id it is given
                details.setdefault("not_judged", {})[label] = "resume/load of any never-created id succeeds"
                continue
        if not reply.ok:
            raise Violation(
                f"status of the live id {how} ({label}: {other[:80]!r}) answered {reply.describe()}: an id that names "
                "no session gets -32002 (or -32602 if refused)",
                expected="error -32002 with that id in data.sessionId (or -32602)",
                observed=show(reply.error),
            )
        raise Violation(
            f"status of the live id {how} ({label}: {other[:80]!r}{'…' if len(other) > 80 else ''}, {len(other)} "
            f"characters) answered {reply.describe()}, as for the session {live}: two ids, one session",
            expected="error -32002 with that id in data.sessionId (or -32602)",
            observed=show(reply.result if reply.ok else reply.error),
        )
    if may_path:
        raise Info(f"{len(may_path)} form(s) took the MAY path; first: {may_path[0]}")


def _refused(reply: Reply) -> bool:
    """Refused as invalid: -32602, or an HTTP refusal of the transport's (Streamable HTTP)."""
    if reply.ok:
        return False
    message = str((reply.error or {}).get("message", ""))
    return reply.code == INVALID_PARAMS or (
        reply.code is None and message.startswith("refused by the transport")
    )

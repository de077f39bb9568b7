"""Unknown sessions: the -32002 error, its message and data, and the MAY path of `inactive`."""

from conformance.cases.acp import spec

from conformance.core import revisions
from conformance.core.outcomes import Info, NotApplicable, Violation
from conformance.core.registry import Level, case
from conformance.core.spellings import LIMITS
from conformance.core.tracing import TRACE_CONTEXT
from conformance.targets.acp.expect import SESSION_NOT_FOUND, expect_error, show
from conformance.targets.acp.target import AcpTarget
from conformance.transport.peer import Reply

# The specs' example; any wording or language passes (localised agents answer in theirs).
EXAMPLE_MESSAGE = "Resource not found"
# Generous for a sentence in any script; a stack trace or a dump of the request goes past it.
MESSAGE_LIMIT = 500
# Common storage limits of an id, and one past each (conformance.core.spellings.LIMITS).
_LENGTHS = sorted({n + extra for n in LIMITS for extra in (0, 1)})


def _took_may_path(reply: Reply) -> bool:
    """The agent answered the not-in-memory word for an unknown id, and the revision allows it."""
    said_inactive = (
        reply.ok
        and isinstance(reply.result, dict)
        and revisions.canonical(reply.result.get("status")) == "inactive"
    )
    return said_inactive and revisions.current().may_inactive_for_unknown


@case("status.error.unknown-session-code", level=Level.MUST, spec=spec.UNKNOWN)
async def unknown_session_code(acp: AcpTarget, details: dict) -> None:
    """A never-created id gets error -32002 (or `inactive`, the MAY path)."""
    reply = await acp.status(acp.unknown_id())
    if _took_may_path(reply):
        raise Info(
            f"the agent answers {revisions.word('inactive')!r} for an unknown id "
            "(allowed by MAY; see status.unknown.may-inactive)"
        )
    expect_error(reply, SESSION_NOT_FOUND, "status of a never-created session id")


@case("status.error.unknown-session-message", level=Level.SHOULD, spec=spec.NOT_FOUND_MESSAGE)
async def unknown_session_message(acp: AcpTarget, details: dict) -> None:
    """The -32002 error's message is a concise single sentence: one line of text, in any language
    and wording ("Resource not found" is the specs' example, not a required text)."""
    reply = await acp.status(acp.unknown_id())
    if reply.ok:
        raise NotApplicable(f"the agent answers a result for unknown ids ({reply.describe()})")
    message = (reply.error or {}).get("message")
    problem = _message_problem(message)
    if problem:
        raise Violation(
            f"error message {show(message)} is {problem}",
            expected=f"a concise single sentence, for example {EXAMPLE_MESSAGE!r}",
            observed=message,
        )


def _message_problem(message: object) -> str | None:
    """What keeps an error message from being a concise single sentence, or None."""
    if not isinstance(message, str) or not message.strip():
        return "not a text"
    if any(separator in message.strip() for separator in "\r\n\u2028\u2029"):
        return "more than one line"
    if len(message) > MESSAGE_LIMIT:
        return f"{len(message)} characters long (more than {MESSAGE_LIMIT})"
    return None


TRACED = "a plain id, asked with W3C trace context in _meta"
_META = {TRACED: {"_meta": TRACE_CONTEXT}}  # the params a label's request carries besides the id


@case("status.error.unknown-session-data", level=Level.MUST, spec=spec.NOT_FOUND_DATA)
async def unknown_session_data(acp: AcpTarget, details: dict) -> None:
    """The -32002 error carries `data.sessionId` equal to the id asked for, exactly: short, 10 kB,
    at common storage limits and just past them (64, 255/256, 1024, 4096 characters, sharing one
    prefix), with quotes, backslashes, non-ASCII, surrounding spaces, `%`, `%25`, `/`, an encoded
    dot segment, and in each Unicode normalisation form (NFC, NFD), and asked with W3C trace
    context in `_meta` (a tracing layer takes a path of its own). Never cut, decoded or
    normalised."""
    base = acp.unknown_id()
    asked_ids = {
        "a plain id": base,
        "a 10 kB id": base + "x" * 10_240,
        **{f"an id of {n} characters": base + "x" * (n - len(base)) for n in _LENGTHS},
        "an id with JSON-special characters": base + '"\\/\b',
        "a non-ASCII id": base + "-ünïcödé-会话-🙂",
        "an id with surrounding spaces": f"  {base}  ",
        "an id with a percent sign": base + "-100%",
        "an id with %25 (an encoded percent sign)": base + "-%2541",
        "an id with a slash": base + "/x",
        "an id behind an encoded dot segment": "..%2F" + base,
        "an id in NFC": base + "-caf\u00e9",
        "an id in NFD": base + "-cafe\u0301",
        TRACED: base + "-traced",
    }
    may_path: list[str] = []
    for label, asked in asked_ids.items():
        reply = await acp.call("session/status", {"sessionId": asked, **_META.get(label, {})})
        if _took_may_path(reply):
            await _within_may_bound(acp, label, asked, reply)
            may_path.append(label)
            continue
        if reply.ok:  # no MAY path lets this revision answer a result for an unknown id
            raise Violation(
                f"for {label}, session/status answered {reply.describe()}: a session the Agent does not know gets -32002"
                + (
                    "" if revisions.current().may_inactive_for_unknown else " (this revision has no MAY path)"
                ),
                expected={"error": {"code": SESSION_NOT_FOUND, "data": {"sessionId": asked[:300]}}},
                observed=show(reply.result),
            )
        if reply.code != SESSION_NOT_FOUND:
            continue  # the code is status.error.unknown-session-code's to judge
        data = (reply.error or {}).get("data")
        got = data.get("sessionId") if isinstance(data, dict) else None
        if got != asked:
            raise Violation(
                f"for {label}, error.data.sessionId is missing or differs from the id asked for"
                + (f" ({len(got)} of {len(asked)} characters)" if isinstance(got, str) else ""),
                expected={"sessionId": asked[:300]},
                observed=show(data),
            )
    if len(may_path) == len(asked_ids):
        raise NotApplicable(
            f"the agent answers a result for unknown ids (the MAY path: {revisions.word('inactive')!r})"
        )
    if may_path:
        details["may_path"] = may_path


async def _within_may_bound(acp: AcpTarget, label: str, asked: str, reply: Reply) -> None:
    """`inactive` for a never-created id is the MAY path only if the id then does not resume
    ("A later session/resume will then fail with -32002 if the session does not exist"): one
    that resumes names a session, made by nobody but status (unless resume makes any id)."""
    if not acp.advertises("resume-or-load"):
        return
    back = await acp.reopen(asked)
    if not back.ok or (await acp.reopen(acp.unknown_id())).ok:
        return
    raise Violation(
        f"for {label}, a never-created id, status answered {reply.describe()} and resume then succeeded (a fresh "
        "never-created id does not resume): not the MAY path but a session status made; a session the Agent does "
        "not know gets -32002",
        expected={"error": {"code": SESSION_NOT_FOUND, "data": {"sessionId": asked[:300]}}},
        observed={"status": reply.describe(), "resume": back.describe()},
    )


@case("status.unknown.may-inactive", level=Level.MAY, spec=spec.MAY_INACTIVE)
async def may_answer_inactive_for_unknown(acp: AcpTarget, details: dict) -> None:
    """`inactive` for an unknown id is allowed only if resuming that id then fails with -32002."""
    asked = acp.unknown_id()
    reply = await acp.status(asked)
    if not _took_may_path(reply):
        raise NotApplicable(f"the agent does not answer {revisions.word('inactive')!r} for unknown ids")
    back = await acp.reopen(asked)
    if back.ok or back.code != SESSION_NOT_FOUND:
        raise Violation(
            f"the agent said {revisions.word('inactive')!r} for a never-created id, but resuming it did not "
            "fail with -32002",
            expected="error -32002 from session/resume (or session/load)",
            observed=back.describe(),
        )
    raise Info(
        f"MAY path taken: {revisions.word('inactive')!r} for unknown ids, and resume then fails with -32002"
    )


@case("status.error.long-session-id", level=Level.MUST, spec=spec.UNKNOWN)
async def long_unknown_id(acp: AcpTarget, details: dict) -> None:
    """A 10 kB unknown id gets -32002 (or `inactive`) and the agent keeps working."""
    asked = "sess_" + "x" * 10_240
    try:
        reply = await acp.status(asked)
    except Exception as exc:  # the agent died or hung on it: that is the finding
        raise Violation(
            f"session/status with a 10 kB sessionId got no answer: {str(exc).splitlines()[0]}",
            expected="error -32002",
            observed=str(exc)[:500],
        ) from None
    if not _took_may_path(reply):
        expect_error(reply, SESSION_NOT_FOUND, "status of a 10 kB never-created id")

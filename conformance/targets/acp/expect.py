"""Small assertions cases use; each raises a typed result with expected vs observed."""

from __future__ import annotations

import json
from typing import Any

from conformance.core import revisions
from conformance.core.outcomes import Violation
from conformance.transport.peer import Reply

__all__ = [
    "SESSION_NOT_FOUND",
    "expect_error",
    "expect_status",
    "is_extension",
    "status_value",
]

SESSION_NOT_FOUND = -32002
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601


def is_extension(value: str) -> bool:
    return value.startswith("_")


def show(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)[:300]
    except (TypeError, ValueError):
        return repr(value)[:300]


def status_value(reply: Reply, context: str) -> str:
    """The status string of a successful reply, or a violation saying what came instead."""
    if not reply.ok:
        raise Violation(
            f"{context}: session/status answered an error",
            expected="a result with a string status",
            observed=reply.describe(),
        )
    result = reply.result
    if not isinstance(result, dict) or not isinstance(result.get("status"), str):
        raise Violation(
            f"{context}: session/status result has no string 'status'",
            expected='{"status": "<string>"}',
            observed=show(result),
        )
    value = result["status"]
    other = revisions.foreign(value)
    if other is not None:
        current = revisions.current()
        raise Violation(
            f"{context}: status is {value!r}, a word of revision {other}, not of the revision checked, "
            f"{current.name} ({' / '.join(current.vocabulary.values())}); an agent answers in one "
            "revision's words throughout (see the report's spec revision and why it was chosen)",
            expected=sorted(current.vocabulary.values()),
            observed=value,
        )
    return value


def expect_status(reply: Reply, allowed: set[str], context: str, *, unknown_ok: bool = False) -> str:
    """Check the reply's status is one of ``allowed`` (canonical names, ``active`` / ``inactive``,
    compared as the checked revision's words); unrecognised values pass if ``unknown_ok``.

    ``unknown_ok`` applies the open-enum rule: a value a client does not recognise is read as
    not active, so where only "not active" is required, it is not this case's failure (the
    enum-openness case reports it). Returns the value as the agent sent it.
    """
    value = status_value(reply, context)
    words = {revisions.word(a) for a in allowed}
    if value in words or (unknown_ok and value not in revisions.known_words()):
        return value
    raise Violation(
        f"{context}: status is {value!r}, expected {' or '.join(repr(w) for w in sorted(words))}",
        expected=sorted(words),
        observed=value,
    )


def expect_error(reply: Reply, code: int, context: str) -> dict[str, Any]:
    if reply.ok:
        raise Violation(
            f"{context}: expected error {code}, got a result",
            expected={"error": {"code": code}},
            observed=reply.describe(),
        )
    if reply.code != code:
        raise Violation(
            f"{context}: error code is {reply.code}, expected {code}",
            expected=code,
            observed=reply.describe(),
        )
    return reply.error or {}

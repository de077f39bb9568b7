"""MCP `session_heartbeat`: what names a session, its sessionId exactly as sent.

Spec: cases/revisions/sources/mcp-session-heartbeat-2025-06-18.txt ("sessionId": "Session ID"):
another string is another session, whatever form a store's collation would fold it to, or a
numeric column would read it as ("007" and "7" are the same number, not the same string).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from conformance.core.outcomes import MissingInput, NotTestable, Problems
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.probe import StateProbe, calibrated, same
from conformance.targets.mcp.target import Instruction, McpTarget, ToolReply, has, new_key, new_session_id

# "Session ID"
SESSION_ID = requirement("mcp-session-heartbeat-2025-06-18", "session-id")


def full_width(text: str) -> str:
    """ASCII as its full-width compatibility form (NFKC maps it back)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


SESSION_ID_FORMS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("upper-case", str.upper),
    ("surrounded by spaces", lambda s: f" {s} "),
    ("full-width (NFKC-equal)", full_width),
)

# An id that is a number, and the other spellings of that number: a column with SQLite's NUMERIC
# affinity (or any store that parses numeric text) keeps them as one key. Each form is a function
# of the digits, so the same form of a fresh number is the control of a refusal.
NUMERIC_FORMS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("the same number without its leading zeros", lambda n: n),
    ("the same number with a plus sign", lambda n: f"+{n}"),
    ("the same number as a decimal", lambda n: f"{n}.0"),
    ("the same number in exponent form", lambda n: f"{n}e0"),
    ("the same number surrounded by spaces", lambda n: f" {n} "),
)


def numeric_id(number: str) -> str:
    """The number zero-padded, as a tracker's build or ticket numbers are ("007")."""
    return f"00{number}"


def new_number() -> str:
    """Twelve digits, no leading zero: exact as a double, so every form reads as the same number."""
    return str(10**11 + uuid.uuid4().int % (9 * 10**11))


@case("heartbeat.session.id-variants", level=Level.MUST, spec=SESSION_ID, needs=("heartbeat",))
async def session_id_in_another_form_is_another_session(mcp: McpTarget, details: dict) -> None:
    """A session id in another form (upper-case, surrounded by spaces, full-width; for an id that
    is a number, the same number spelled otherwise: "7" for "007", "+7", "7.0", "7e0") names
    another session: a heartbeat for it shows none of the first session's instructions or state,
    is not answered from the first session's retry result under the same idempotency key, and is
    not refused for it (refusing every new id of that form is the server's rule)."""
    probe, unreadable = await calibrated(mcp)
    mark = probe.values(2)[1] if probe is not None else None
    sid = new_session_id()
    text = await _pending(mcp, sid, probe, mark)
    if text is None and probe is None:
        raise MissingInput(
            "nothing of a session shows in another's results to look for: "
            + unreadable
            + "; and no instruction that comes again until acknowledged"
            + ("" if mcp.can_instruct else " (needs --instruct-cmd or --instruct-url)")
        )
    seen = Problems.listed(
        "another string is another session: none of the first session's instructions or state",
        lead="a session id in another form was taken for the session: ",
    )
    with seen.kept(details):  # a later form unanswered keeps the forms already taken for the session
        forms = [(form, variant(sid), variant(new_session_id())) for form, variant in SESSION_ID_FORMS]
        await _forms_taken(mcp, sid, forms, probe, mark, text, seen)
        await _still_pending(mcp, sid, text, probe, unreadable)
        number = new_number()
        numeric = numeric_id(number)
        key = new_key()
        reply = await mcp.heartbeat(numeric, idempotencyKey=key, **_write(probe, mark))
        if not reply.succeeded:
            # A server may take ids of its own format only: one that is a number is never judged.
            details["numeric session id"] = (
                f"{numeric!r} refused ({reply.describe()}): its other spellings not judged"
            )
        else:
            text = await _pending(mcp, numeric, probe, mark, written=True)
            if text is None and probe is None:
                details["numeric session id"] = "its instruction did not come again: nothing to look for"
            else:
                fresh = new_number()
                forms = [(form, variant(number), variant(fresh)) for form, variant in NUMERIC_FORMS]
                key = await _key_scoped_to_session(mcp, key, probe, mark, details)
                await _forms_taken(mcp, numeric, forms, probe, mark, text, seen, key=key)
                await _still_pending(mcp, numeric, text, probe, unreadable)
    seen.judge()


async def _key_scoped_to_session(
    mcp: McpTarget, key: str, probe: StateProbe | None, mark: Any, details: dict
) -> str | None:
    """Calibration of the key probe: ``key`` used in an unrelated new session is a first call
    there (taken, and showing none of the first session's state). A server that keeps keys per
    caller instead refuses it or answers the first result (heartbeat.idempotency.key-across-sessions
    judges that), so the spellings are then read without the key: its refusal would show the key's
    scope, not the ids'."""
    control = await mcp.heartbeat(new_session_id(), idempotencyKey=key)
    if control.succeeded and not (probe is not None and same(probe.value_in(control.data), mark)):
        return key
    details["numeric session id key"] = (
        f"the key in an unrelated new session was not a first call ({control.describe()}): "
        "the spellings are read without it"
    )
    return None


async def _pending(
    mcp: McpTarget, sid: str, probe: StateProbe | None, mark: Any, *, written: bool = False
) -> str | None:
    """The session's state set to ``mark`` and an instruction left pending in it: the instruction's
    text if it comes again until acknowledged (redelivery is a MAY), else None."""
    if not written:
        await mcp.ok_heartbeat(sid, **_write(probe, mark))
    text = f"conformance id-variant {new_key()[-10:]}" if mcp.can_instruct else None
    if text is not None:
        await mcp.instruct(sid, text)
        try:
            delivery = await mcp.await_delivery(sid, [text])
            again, _ = await mcp.drain(sid)
            if delivery.missing or not has(again, text):
                text = None  # not delivered again: a heartbeat shows it nowhere
        except MissingInput:  # the state may still tell
            text = None
    return text


def _write(probe: StateProbe | None, mark: Any) -> dict[str, Any]:
    return probe.write(mark) if probe is not None else {"status": "active"}


async def _forms_taken(
    mcp: McpTarget,
    sid: str,
    forms: list[tuple[str, str, str]],
    probe: StateProbe | None,
    mark: Any,
    text: str | None,
    seen: Problems,
    *,
    key: str | None = None,
) -> None:
    """Each (form, id, a new id in that form) read once; the first under ``key``, the idempotency
    key of sid's heartbeat (a key is the caller's in one session: another session's first call under
    it is a first call)."""
    for index, (form, spelled, control_id) in enumerate(forms):
        under = key if index == 0 else None
        reply = await mcp.heartbeat(spelled, **({"idempotencyKey": under} if under is not None else {}))
        what = f"{form} {spelled!r} (session {sid!r})" + (
            ", under that session's idempotency key" if under else ""
        )
        if reply.rejected:
            # Refusing an id of that form (malformed, or a session the caller may not open) is the
            # server's rule if it refuses a new id in that form too; else the id was taken for sid's.
            control = await mcp.heartbeat(control_id)
            if control.succeeded:
                seen.add(None, f"{what}: refused ({reply.describe()}), while a new id in that form is taken")
            continue
        shown = []
        if text is not None and has(_instructions_or_none(mcp, reply), text):
            shown.append("its pending instruction")
        if probe is not None and same(probe.value_in(reply.data), mark):
            shown.append(f"its {probe.field} {mark!r}")
        if shown:
            seen.add(None, f"{what}: " + " and ".join(shown))


async def _still_pending(
    mcp: McpTarget, sid: str, text: str | None, probe: StateProbe | None, unreadable: str
) -> None:
    if text is not None and probe is None:
        after, _ = await mcp.drain(sid)
        if not has(after, text):
            raise MissingInput(
                "the session's instruction stopped coming again while the other forms were asked (a MAY), so "
                f"their results not showing it proves nothing; and {unreadable}"
            )


def _instructions_or_none(mcp: McpTarget, reply: ToolReply) -> list[Instruction]:
    try:
        return mcp.instructions(reply)
    except (MissingInput, NotTestable):
        return []

"""MCP `session_heartbeat`: what names a session, its sessionId exactly as sent.

Spec: cases/revisions/sources/mcp-session-heartbeat-2025-06-18.txt ("sessionId": "Session ID"):
another string is another session, whatever form a store's collation would fold it to.
"""

from __future__ import annotations

from typing import Any

from conformance.core.outcomes import MissingInput, NotTestable, Problems
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.probe import calibrated, same
from conformance.targets.mcp.target import Instruction, McpTarget, ToolReply, has, new_key, new_session_id

# "Session ID"
SESSION_ID = requirement("mcp-session-heartbeat-2025-06-18", "session-id")


def full_width(text: str) -> str:
    """ASCII as its full-width compatibility form (NFKC maps it back)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


SESSION_ID_FORMS: tuple[tuple[str, Any], ...] = (
    ("upper-case", str.upper),
    ("surrounded by spaces", lambda s: f" {s} "),
    ("full-width (NFKC-equal)", full_width),
)


@case("heartbeat.session.id-variants", level=Level.MUST, spec=SESSION_ID, needs=("heartbeat",))
async def session_id_in_another_form_is_another_session(mcp: McpTarget, details: dict) -> None:
    """A session id in another form (upper-case, surrounded by spaces, full-width) names another
    session: a heartbeat for it shows none of the first session's instructions or state, and is
    not refused for it (refusing every new id of that form is the server's rule)."""
    probe, unreadable = await calibrated(mcp)
    sid = new_session_id()
    mark = probe.values(2)[1] if probe is not None else None
    await mcp.ok_heartbeat(sid, **(probe.write(mark) if probe is not None else {"status": "active"}))
    text = f"conformance id-variant {new_key()[-10:]}" if mcp.can_instruct else None
    if text is not None:
        await mcp.instruct(sid, text)
        try:
            delivery = await mcp.await_delivery(sid, [text])
            again, _ = await mcp.drain(sid)
            if delivery.missing or not has(again, text):
                text = None  # not delivered again (redelivery is a MAY): a heartbeat shows it nowhere
        except MissingInput:  # the state may still tell
            text = None
    if text is None and probe is None:
        raise MissingInput(
            "nothing of a session shows in another's results to look for: "
            + unreadable
            + "; and no instruction that comes again until acknowledged"
            + ("" if mcp.can_instruct else " (needs --instruct-cmd or --instruct-url)")
        )
    seen = Problems.listed(
        "another string is another session: none of the first session's instructions or state",
        lead=f"a session id in another form was taken for session {sid!r}: ",
    )
    with seen.kept(details):  # a later form unanswered keeps the forms already taken for the session
        for form, variant in SESSION_ID_FORMS:
            reply = await mcp.heartbeat(variant(sid))
            if reply.rejected:
                # Refusing an id of that form (malformed, or a session the caller may not open) is the
                # server's rule if it refuses a new id in that form too; else the id was taken for sid's.
                control = await mcp.heartbeat(variant(new_session_id()))
                if control.succeeded:
                    seen.add(
                        None,
                        f"{form} {variant(sid)!r}: refused ({reply.describe()}), while a new id in that form is taken",
                    )
                continue
            shown = []
            if text is not None and has(_instructions_or_none(mcp, reply), text):
                shown.append("its pending instruction")
            if probe is not None and same(probe.value_in(reply.data), mark):
                shown.append(f"its {probe.field} {mark!r}")
            if shown:
                seen.add(None, f"{form} {variant(sid)!r}: " + " and ".join(shown))
    seen.judge()
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

"""MCP `session_heartbeat`: values at storage limits, empty values and encodings.

Storage layers cut strings at their column sizes (64, 255, 1024, 4096 …) or refuse them; web
stacks decode percent-encoding and normalise paths and Unicode. The schema puts no bound on a
session id, a key or an instruction's text, so each must come back whole or be refused, never be
cut, merged with another or reach another session. Empty values the schema allows (an empty
acknowledgement list, an empty step, an empty key) mean what they say: nothing acknowledged, an
empty step, a key like any other.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from conformance.core.outcomes import MissingInput, NotTestable, Problems, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.probe import StateProbe, calibrate, leaves, pointers_to, same
from conformance.targets.mcp.reading import pointer_get
from conformance.targets.mcp.target import McpTarget, has, new_session_id

# "Session ID"
SESSION_ID = requirement("mcp-session-heartbeat-2025-06-18", "session-id")
# "Unique retry key"
KEY = requirement("mcp-session-heartbeat-2025-06-18", "key")
# "Pending human instructions are delivered automatically; unacknowled…"
DELIVERY = requirement("mcp-session-heartbeat-2025-06-18", "delivery")
# "Instruction IDs the agent has received and processed."
ACK = requirement("mcp-session-heartbeat-2025-06-18", "ack")
# "Report session status, progress, and the current step."
PURPOSE = requirement("mcp-session-heartbeat-2025-06-18", "purpose")

# Common storage limits and one past them: a string cut at any of them merges with a longer one.
LENGTHS = (64, 255, 256, 1024, 4096, 4097)
TEXT_LENGTHS = (255, 256, 1024, 1025, 4097)
FILLER = "abcdefghijklmnopqrstuvwxyz0123456789"


def long_string(prefix: str, length: int, *, extra: str = "") -> str:
    """``prefix`` (unique), ``extra``, then filler up to ``length`` characters."""
    head = prefix + extra
    return head + (FILLER * (length // len(FILLER) + 1))[: length - len(head)]


def merged_with(now: Any, written: dict[int, Any], own: int) -> list[int]:
    """The other lengths whose value a read shows: the ids (or keys) it was merged with."""
    return [n for n, value in written.items() if n != own and same(now, value)]


def delivered_as(text: str, items: list[Any]) -> list[str]:
    """The delivered strings that carry ``text``'s unique token (its second word): what became of
    a text that did not come back as given."""
    head = text.split()[1]
    return [v for item in items for _, v in leaves(item).items() if isinstance(v, str) and head in v]


@case("heartbeat.boundary.session-id-lengths", level=Level.MUST, spec=SESSION_ID, needs=("heartbeat",))
async def long_session_ids_stay_apart(mcp: McpTarget, details: dict) -> None:
    """Session ids of 64, 255, 256, 1024, 4096 and 4097 characters, each the start of the next, are
    six sessions (or the longer ones are refused): each reads back its own state, none another's
    (a store that cuts ids at a column size merges them). Read in pairs, each id and the one before
    it right after both were written, so a session cap of one or two never stands between a write
    and its read; a read showing no state at all is judged only where plain sessions keep theirs."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    whole = long_string(f"conformance-{uuid.uuid4().hex[:12]}-", max(LENGTHS))
    values = dict(zip(LENGTHS, probe.values(len(LENGTHS)), strict=True))
    written: dict[int, Any] = {}
    refused = []
    details["refused"] = refused
    forgotten: list[str] = []
    problems = Problems.listed(
        "each id its own session, or refused; never cut",
        lead="long session ids sharing a prefix were not kept apart (cut, or merged): ",
    )

    async def check(length: int) -> None:
        now = await probe.read(mcp, whole[:length])
        if same(now, written[length]):
            return
        merged = merged_with(now, written, length)
        if merged:
            problems.add(
                None, f"the {length}-character id reads the state written to the {merged[0]}-character one"
            )
        else:
            forgotten.append(
                f"the {length}-character id reads {probe.field} {now!r}, not what was written to it"
            )

    with problems.kept(details):  # a later read refused keeps the ids already shown merged
        before: int | None = None
        for length in LENGTHS:
            reply = await mcp.heartbeat(whole[:length], **probe.write(values[length]))
            if reply.rejected:
                refused.append(length)
                continue
            written[length] = values[length]
            if before is not None:
                await check(before)
                await check(length)
            before = length
        if len(written) == 1:
            await check(next(iter(written)))
        if forgotten:
            # Each read came after at most one other session was used: a cap of one forgets so.
            if await probe.forgets_after(mcp, 1):
                details["forgotten, as plain sessions are"] = forgotten
            else:
                for shown in forgotten:
                    problems.add(None, shown)
    problems.judge()


@case("heartbeat.boundary.key-lengths", level=Level.MUST, spec=KEY, needs=("heartbeat",))
async def long_keys_stay_apart(mcp: McpTarget, details: dict) -> None:
    """Idempotency keys of 64, 255, 256, 1024, 4096 and 4097 characters, each the start of the next,
    are six keys: each call is applied (a key cut at a column size would be answered as a retry of
    a shorter one, or refused as reused), or refused as a fresh key that long is refused too."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    sid = new_session_id()
    await mcp.ok_heartbeat(sid, status="active")
    whole = long_string(f"idem-{uuid.uuid4().hex}-", max(LENGTHS))
    values = dict(zip(LENGTHS, probe.values(len(LENGTHS)), strict=True))
    written: dict[int, Any] = {}
    problems = Problems.listed(
        "each key its own call, applied; or refused where every key that long is",
        lead="long idempotency keys sharing a prefix were taken for one another: ",
    )
    with problems.kept(details):  # a later read refused keeps the keys already shown taken for another
        for length in LENGTHS:
            reply = await mcp.heartbeat(sid, idempotencyKey=whole[:length], **probe.write(values[length]))
            if reply.rejected:
                fresh = long_string(f"idem-{uuid.uuid4().hex}-", length)
                control = await mcp.heartbeat(
                    new_session_id(), idempotencyKey=fresh, **probe.write(values[length])
                )
                if control.succeeded:
                    problems.add(
                        None,
                        f"the {length}-character key was refused ({reply.describe()}), while a fresh key that long "
                        "is taken",
                    )
                continue
            written[length] = values[length]
            now = await probe.read(mcp, sid)
            if not same(now, values[length]):
                merged = merged_with(now, written, length)
                problems.add(
                    None,
                    f"the {length}-character key was answered as a retry of the {merged[0]}-character one"
                    if merged
                    else f"the call with the {length}-character key was not applied ({probe.field} reads {now!r})",
                )
    problems.judge()


@case("heartbeat.boundary.instruction-lengths", level=Level.MUST, spec=DELIVERY, needs=("heartbeat",))
async def long_instructions_come_whole(mcp: McpTarget, details: dict) -> None:
    """Instructions of 255, 256, 1024, 1025 and 4097 characters (one with a non-ASCII letter) are
    delivered whole, or refused by the operator hook: never cut, nor dropped at a limit the hook
    and the server draw one character apart."""
    mcp.require_instruct()
    sid = new_session_id()
    await mcp.ok_heartbeat(sid, status="active")
    texts = [
        long_string(f"conformance text-{n} {uuid.uuid4().hex[:10]} ", n, extra="ø " if n == 256 else "")
        for n in TEXT_LENGTHS
    ]
    refused = {}
    for text in texts:
        said = await mcp.instruct(sid, text, refusable=True)
        if said is not None:
            refused[len(text)] = said
    details["refused by the operator hook"] = refused
    accepted = [t for t in texts if len(t) not in refused]
    if not accepted:
        return
    delivery = await mcp.await_delivery(sid, accepted)
    if not delivery.missing:
        return
    await delivery.explain_missing(mcp)
    problems = []
    for text in delivery.missing:
        shown = delivered_as(text, delivery.items)
        problems.append(
            f"the {len(text)}-character instruction came back as {len(shown[0])} characters"
            if shown
            else f"the {len(text)}-character instruction was not delivered within {mcp.delivery_wait:g} s"
        )
    raise Violation(
        "instructions at common storage limits did not come back whole: " + "; ".join(problems),
        expected="each text whole, or refused by the operator hook",
        observed=problems,
    )


# Pairs of ids a web stack takes for one another: (what, the session's id, the other id), built
# on a fresh base id each.
ENCODINGS: tuple[tuple[str, Any, Any], ...] = (
    ("a percent-encoded '/'", lambda b: f"{b}/x", lambda b: f"{b}%2Fx"),
    ("an encoded '%' ('%25')", lambda b: f"{b}%", lambda b: f"{b}%25"),
    ("'/' encoded twice ('%252F')", lambda b: f"{b}/x", lambda b: f"{b}%252Fx"),
    ("a dot segment", lambda b: b, lambda b: f"up/../{b}"),
    ("an encoded dot segment", lambda b: b, lambda b: f"up/%2E%2E/{b}"),
    ("é decomposed (NFD) for é composed (NFC)", lambda b: f"{b}\u00e9", lambda b: f"{b}e\u0301"),
)


# Characters storage and web stacks change: one outside the Basic Multilingual Plane (a MySQL
# utf8mb3 column cuts the text there), a decomposed accent (NFC composes it), a ligature and a
# fullwidth letter (NFKC replaces them), a zero-width joiner in an emoji sequence, a right-to-left
# mark; whitespace at both ends (an indented first line, a trailing newline: input "sanitised"
# with strip() loses them); and the characters markup, quoting, template and format layers treat
# as syntax (an HTML sanitiser escapes & < > " ', a shell or JSON layer backslash sequences, printf
# and str.format % and {}). Each text is built around its unique token.
TEXT_ENCODINGS = {
    "astral": "{token} \U0001f642 \U0001f389 end",
    "decomposed": "{token} cafe\u0301 end",
    "compatibility": "{token} \ufb01le \uff21 end",
    "joined": "{token} \U0001f469\u200d\U0001f4bb end",
    "bidi": "{token} \u200fabc end",
    "layout": "    {token} indented\n",
    "markup": '{token} don\'t merge <main> & deploy "now" `x` a\\tb \\u0041 50% %s {{x}} {{}} end',
}


def json_texts(token: str) -> dict[str, str]:
    """Texts that are whole JSON documents: a reader that decodes stored values "loosely"
    (json.loads, the raw text when that fails) delivers a number, a boolean, null, an array, an
    object, or a string without its quotes. The number is unique; true and null are unique in their
    session (no other text the case enqueues holds either)."""
    return {
        "JSON number": str(uuid.uuid4().int % (9 * 10**14) + 10**14),
        "JSON true": "true",
        "JSON null": "null",
        "JSON object": json.dumps({"conformance": token, "step": 3}),
        "JSON array": json.dumps(["conformance", token, 2]),
        "JSON string": json.dumps(f"conformance {token}"),
    }


JSON_KINDS = {
    bool: "the boolean",
    int: "the number",
    float: "the number",
    list: "the array",
    dict: "the object",
}


def decoded_as(text: str, items: list[Any], delivered: list[str]) -> str | None:
    """What a JSON text that did not come back as given came back as: the value its decoding gives,
    found in the field where the delivered texts are (none found: None)."""
    fields = {
        p
        for item in items
        for p, v in leaves(item).items()
        if isinstance(v, str) and any(t in v for t in delivered)
    }
    decoded = json.loads(text)
    for item in items:
        for field in fields:
            value = pointer_get(item, field)
            if same(value, decoded):
                shown = json.dumps(value, ensure_ascii=True)
                if isinstance(value, str):
                    return f"the string {shown} (its quotes gone)"
                return f"{JSON_KINDS.get(type(value), '')} {shown}, not a string".lstrip()
    return None


@case("heartbeat.boundary.instruction-encodings", level=Level.MUST, spec=DELIVERY, needs=("heartbeat",))
async def instruction_texts_come_unchanged(mcp: McpTarget, details: dict) -> None:
    """Instructions holding an emoji outside the Basic Multilingual Plane, a decomposed accent, a
    ligature and a fullwidth letter, a joined emoji sequence, a right-to-left mark, one with an
    indented first line and a trailing newline, one with markup, quotes, backslash sequences, '%'
    and braces, and texts that are JSON documents (a number, true, null, an object, an array, a
    quoted string) are delivered exactly as given, each a string (or refused by the operator hook):
    never cut at a character, never normalised, trimmed, escaped or decoded."""
    mcp.require_instruct()
    sid = new_session_id()
    await mcp.ok_heartbeat(sid, status="active")
    texts = {
        name: form.format(token=f"conformance enc-{uuid.uuid4().hex[:10]}")
        for name, form in TEXT_ENCODINGS.items()
    } | json_texts(f"json-{uuid.uuid4().hex[:10]}")
    refused = {}
    for name, text in texts.items():
        said = await mcp.instruct(sid, text, refusable=True)
        if said is not None:
            refused[name] = said
    details["refused by the operator hook"] = refused
    accepted = [text for name, text in texts.items() if name not in refused]
    if not accepted:
        return
    delivery = await mcp.await_delivery(sid, accepted)
    if not delivery.missing:
        return
    await delivery.explain_missing(mcp)
    problems = []
    delivered = [t for t in accepted if t not in delivery.missing]
    for name, text in texts.items():
        if text not in delivery.missing:
            continue
        shown = (
            decoded_as(text, delivery.items, delivered)
            if name.startswith("JSON")
            else next(iter(f"{s!a}" for s in delivered_as(text, delivery.items)), None)
        )
        problems.append(
            f"the {name} text {text!a} came back as {shown}"
            if shown
            else f"the {name} text {text!a} was not delivered within {mcp.delivery_wait:g} s"
        )
    raise Violation(
        "instructions holding characters that storage or a web stack changes did not come back as given: "
        + "; ".join(problems),
        expected="each text exactly as given, a string, or refused by the operator hook",
        observed=problems,
    )


@case("heartbeat.boundary.id-encodings", level=Level.MUST, spec=SESSION_ID, needs=("heartbeat",))
async def encoded_ids_reach_no_other_session(mcp: McpTarget, details: dict) -> None:
    """An id that decodes, normalises or resolves to another session's id ('%2F' for '/', '%25' for
    '%', a double encoding, dot segments, NFD for NFC) names another session: its heartbeat shows
    nothing of that session's state (or is refused, as a new id in that form is)."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    values = probe.values(len(ENCODINGS))
    problems = Problems.listed(
        "another string is another session",
        lead="an id in an encoded or normalised form reached another session: ",
    )
    with problems.kept(details):  # a later form's heartbeat refused keeps the forms already shown
        for (what, session_form, other_form), value in zip(ENCODINGS, values, strict=True):
            base = new_session_id()
            await mcp.ok_heartbeat(session_form(base), **probe.write(value))
            reply = await mcp.heartbeat(other_form(base))
            if reply.rejected:
                control = await mcp.heartbeat(other_form(new_session_id()))
                if control.succeeded:
                    problems.add(
                        None,
                        f"{what}: {other_form(base)!a} refused ({reply.describe()}), while a new id in that form is "
                        "taken",
                    )
                continue
            if same(probe.value_in(reply.data), value):
                problems.add(None, f"{what}: {other_form(base)!a} shows the state of {session_form(base)!a}")
    problems.judge()


@case("heartbeat.boundary.empty-ack-list", level=Level.MUST, spec=ACK, needs=("heartbeat",))
async def empty_acknowledgement_list_acknowledges_nothing(mcp: McpTarget, details: dict) -> None:
    """acknowledgedInstructionIds [] acknowledges nothing: an instruction enqueued after the last
    delivery is still delivered, and a delivered one comes again exactly as it does in a twin
    session whose heartbeat leaves the field out."""
    mcp.require_instruct()
    empty, omitted = new_session_id(), new_session_id()
    for sid in (empty, omitted):
        await mcp.ok_heartbeat(sid, status="active")
    seen = {
        empty: f"conformance empty-ack {uuid.uuid4().hex[:10]}",
        omitted: f"conformance no-ack {uuid.uuid4().hex[:10]}",
    }
    for sid, text in seen.items():
        await mcp.instruct(sid, text)
        delivery = await mcp.await_delivery(sid, [text])
        if delivery.missing:
            await delivery.explain_missing(mcp)
            raise NotTestable(
                "an enqueued instruction was not delivered (see heartbeat.instructions.delivered)",
                observed=delivery.items[:20],
            )
    fresh = f"conformance after-empty-ack {uuid.uuid4().hex[:10]}"
    await mcp.instruct(empty, fresh)
    answers = {
        empty: await mcp.ok_heartbeat(empty, acknowledgedInstructionIds=[]),
        omitted: await mcp.ok_heartbeat(omitted),
    }
    later = {sid: (await mcp.drain(sid))[0] for sid in (empty, omitted)}
    # After the call: its own answer may list what it was built from before the list was read.
    again = {sid: has(later[sid], seen[sid]) for sid in (empty, omitted)}
    details["delivered again (empty list, field left out)"] = [again[empty], again[omitted]]
    fresh_seen = has(mcp.instructions(answers[empty]) + later[empty], fresh)
    if not fresh_seen:
        fresh_seen = not (await mcp.await_delivery(empty, [fresh])).missing
    problems = []
    if not fresh_seen:
        problems.append(
            "an instruction enqueued after the last delivery never came once a heartbeat sent an empty list"
        )
    if again[omitted] and not again[empty]:
        problems.append(
            "the delivered instruction stopped coming after a heartbeat with an empty list, while its twin, after a "
            "heartbeat without the field, came again"
        )
    if problems:
        raise Violation(
            "acknowledgedInstructionIds [] was taken to acknowledge: " + "; ".join(problems),
            expected="an empty list acknowledges nothing",
            observed=problems,
        )


@case("heartbeat.boundary.empty-step", level=Level.MUST, spec=PURPOSE, needs=("heartbeat",))
async def empty_step_is_recorded(mcp: McpTarget, details: dict) -> None:
    """currentStep "" reports an empty step: the step reported before it does not read back after
    it (a server that skips a falsy value keeps the old one)."""
    probe = await _probe_on(mcp, "currentStep")
    sid = new_session_id()
    before = probe.values(1)[0]
    await mcp.ok_heartbeat(sid, **probe.write(before))
    reply = await mcp.heartbeat(sid, currentStep="")
    if reply.rejected:
        raise Violation(
            f'a heartbeat with currentStep "" was refused: {reply.describe()}',
            expected='a result: the schema allows ""',
            observed=reply.describe(),
        )
    now = await probe.read(mcp, sid)
    if same(now, before):
        raise Violation(
            f'after currentStep "", the step reported before it still reads back ({before!r}): the empty step was '
            "ignored",
            expected='"" (or no step)',
            observed=now,
        )


@case("heartbeat.boundary.empty-key", level=Level.MUST, spec=KEY, needs=("heartbeat",))
async def empty_key_is_a_key(mcp: McpTarget, details: dict) -> None:
    """idempotencyKey "" is a key like any other (or refused): a retry under it is not applied again
    (a server that takes a falsy key for none executes every retry)."""
    probe = await calibrate(mcp)
    details["probe"] = probe.describe()
    sid = new_session_id()
    first, later = probe.values(2)
    reply = await mcp.heartbeat(sid, idempotencyKey="", **probe.write(first))
    if reply.rejected:
        details["empty key"] = f"refused: {reply.describe()}"
        return
    await mcp.ok_heartbeat(sid, **probe.write(later))
    await mcp.heartbeat(sid, idempotencyKey="", **probe.write(first))
    now = await probe.read(mcp, sid)
    if not same(now, later):
        raise Violation(
            f'after {probe.field} {first!r} under key "", {later!r}, then a retry under "", it reads {now!r}: the '
            "retry was applied again (the empty key taken for no key)",
            expected=f"{probe.field} {later!r}",
            observed=now,
        )


async def _probe_on(mcp: McpTarget, field: str) -> StateProbe:
    probe = await calibrate(mcp)
    if probe.field != field:
        raise MissingInput(
            f"the results show {probe.field}, not {field}, so what a heartbeat recorded of it does not read back"
        )
    return probe


# Reports in the order agents really send them: down as well as up, the same value twice, each
# bound, from one bound straight to the other. Each row is one heartbeat's numbers (integers, so a
# server that keeps whole numbers reads them back as sent).
REPORTED_SEQUENCE: tuple[dict[str, int], ...] = (
    {"progressPercent": 80, "stepIndex": 7, "stepCount": 9},
    {"progressPercent": 20, "stepIndex": 3, "stepCount": 9},
    {"progressPercent": 20, "stepIndex": 3, "stepCount": 9},
    {"progressPercent": 100, "stepIndex": 9, "stepCount": 9},
    {"progressPercent": 0, "stepIndex": 1, "stepCount": 1},
    {"progressPercent": 35, "stepIndex": 4, "stepCount": 12},
)


@case("heartbeat.boundary.reported-sequence", level=Level.MUST, spec=PURPOSE, needs=("heartbeat",))
async def reported_values_in_any_order(mcp: McpTarget, details: dict) -> None:
    """progressPercent and stepIndex reported going down, repeated, at each bound and from one bound
    to the other read back as last reported (a server that keeps the highest, or skips a repeat or
    a 0, shows another): judged where the results show them, at the place that showed every one."""
    sid = new_session_id()
    shown: dict[str, set[str]] = {}
    history: list[dict[str, Any]] = []
    for row in REPORTED_SEQUENCE:
        reply = await mcp.heartbeat(sid, **row)
        if not reply.succeeded:
            await mcp.explain_refusal(sid, reply, row)
            raise Violation(
                f"a valid heartbeat {row} (step {len(history) + 1} of the sequence) was refused: {reply.describe()}",
                expected="a result (every value is within the schema's bounds)",
                observed=reply.describe(),
            )
        # Read back by a heartbeat that carries none of the numbers, so what shows is recorded.
        data = (await mcp.ok_heartbeat(sid, currentStep=f"conformance read {uuid.uuid4().hex[:8]}")).data
        history.append({"sent": row, "read": data})
        for field in ("progressPercent", "stepIndex"):
            places = pointers_to(data, row[field])
            shown[field] = places if field not in shown else shown[field] & places
    first = REPORTED_SEQUENCE[0]
    judged = {f: p for f, p in shown.items() if pointers_to(history[0]["read"], first[f])}
    details["judged"] = {f: sorted(p) or "no place showed every value" for f, p in judged.items()}
    if not judged:
        raise MissingInput(
            "a heartbeat result without progressPercent or stepIndex did not show the values reported before it, "
            "so what the server recorded of them does not read back"
        )
    lost = [f for f, places in judged.items() if not places]
    if lost:
        trail = [
            f"{field} sent {h['sent'][field]}, read "
            + ", ".join(
                f"{p}={leaves(h['read']).get(p)!r}" for p in sorted(_first_places(history, field))[:3]
            )
            for field in lost
            for h in history
        ]
        raise Violation(
            f"a heartbeat result did not show the {' and '.join(lost)} last reported at every step of the sequence "
            "80, 20, 20, 100, 0, 35 (stepIndex 7, 3, 3, 9, 1, 4): " + "; ".join(trail),
            expected="each read shows the value last reported",
            observed=trail,
        )


def _first_places(history: list[dict[str, Any]], field: str) -> set[str]:
    """Where the first read showed the first value of ``field``: the places a server showing it lost."""
    return pointers_to(history[0]["read"], history[0]["sent"][field])

"""MCP `session_heartbeat`: access by another caller, who learns and changes nothing, and by the
same caller on a second connection, who keeps everything.

Spec: cases/revisions/sources/mcp-session-heartbeat-2025-06-18.txt ("The server also verifies
current scopes and resource-level access before returning data or changing a record"). Caller B is
the run's --other-header over Streamable HTTP; the same caller again is a second connection with the
run's --header. Over stdio there is one caller on one connection, and these cases are not testable.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
from conformance.cases.mcp.instructions import DELIVERY, enqueue, marker
from conformance.cases.mcp.later import held_for, idle_ttl

from conformance.core.outcomes import MissingInput, NotApplicable, NotTestable, Problems, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets.mcp.probe import StateProbe, calibrated, read, same
from conformance.targets.mcp.reading import NoInstructionList
from conformance.targets.mcp.target import (
    TOOL,
    AllowanceSpent,
    McpTarget,
    ToolReply,
    has,
    new_key,
    new_session_id,
)
from conformance.targets.mcp.twinseq import MAX_TOOLS, UNLISTED_TOOL, arguments_for, fill_template

# "The server also verifies current scopes and resource-level access b…"
ACCESS = requirement("mcp-session-heartbeat-2025-06-18", "access")
# "Preserve correlation IDs and unchanged mutation idempotency keys acr…"
RETRIES = requirement("mcp-session-heartbeat-2025-06-18", "retries")
CONNECTION_END_RULES = ("instructions", "state", "retry")


async def _session_with_secrets(mcp: McpTarget) -> tuple[str, str, str | None]:
    """A session of caller A's with a step and, where the operator hook can, an instruction that
    only A may learn: its id, the step, the instruction (None without the hook)."""
    sid = new_session_id()
    step = marker("secret-step")
    await mcp.ok_heartbeat(sid, status="waiting", currentStep=step)
    secret = marker("secret-instruction") if mcp.can_instruct else None
    if secret is not None:
        await enqueue(mcp, sid, secret)
    return sid, step, secret


@case("heartbeat.access.other-caller-rejected", level=Level.MUST, spec=ACCESS, needs=("heartbeat",))
async def other_caller_learns_nothing(mcp: McpTarget, details: dict) -> None:
    """Caller B's heartbeat for the id of caller A's session reveals nothing of it: refused with an
    error that says nothing of it, or answered as a session of B's own (a server that scopes ids per
    caller) with nothing of A's in it; and the other way round (an ownership check that holds one
    way only, say one that compares identities by order, fails the second). An answer is judged
    only where the owner's own answer shows what it looks for: else it could not show a leak."""
    mcp.require_other_caller()
    sid, step, secret = await _session_with_secrets(mcp)
    async with mcp.other_caller() as other:
        reply = await other.heartbeat(sid)
        theirs, their_step = new_session_id(), marker("secret-step")
        await other.ok_heartbeat(theirs, status="waiting", currentStep=their_step)
        back = await mcp.heartbeat(theirs)
        # What each owner's own heartbeat shows of its session: what a leak would have shown.
        own_a, own_b = await mcp.heartbeat(sid), await other.heartbeat(theirs)
    details["reply_to_b"] = reply.result if reply.reply.ok else reply.describe()
    details["reply_to_a"] = back.result if back.reply.ok else back.describe()
    unseen = []
    for asker, owner, answer, own, secrets in (
        ("B", "A", reply, own_a, (step, secret)),
        ("A", "B", back, own_b, (their_step,)),
    ):
        leaked = [s for s in secrets if s is not None and s in _all_text(answer)]
        if leaked:
            raise Violation(
                f"caller {asker}'s heartbeat for caller {owner}'s session was "
                + ("refused with an error that" if answer.rejected else "answered with a result that")
                + f" reveals caller {owner}'s session: "
                + ", ".join(repr(s) for s in leaked),
                expected="nothing of the other caller's session: an error that says nothing of it, or an answer "
                "about a session of the asker's own",
                observed=answer.describe(),
            )
        if answer.rejected:
            continue
        if not any(s is not None and s in _all_text(own) for s in secrets):
            unseen.append(
                f"caller {asker}'s heartbeat for caller {owner}'s session id was answered, and caller {owner}'s own "
                "answer shows neither its step nor its instruction, so an answer from that session would show "
                "nothing either"
            )
    if unseen:
        raise MissingInput("; ".join(unseen))


# Rounds of the two callers' first heartbeats for one new id, sent together: a check-then-create
# window as long as a storage round trip is hit in one of them.
RACE_ROUNDS = 3


@case("heartbeat.access.first-calls-together", level=Level.MUST, spec=ACCESS, needs=("heartbeat",))
async def first_calls_together(mcp: McpTarget, details: dict) -> None:
    """Callers A and B send the first heartbeat for one new session id at the same moment, each
    with a step of its own, RACE_ROUNDS times (A's call put on the wire first, then B's, in turn),
    and each caller whose call was accepted heartbeats
    the id once more. Whichever way the server settles it (one of them refused, or each answered
    about a session of its own where ids are scoped per caller), no answer to either caller
    carries the other's step: one caller's write landed in the other's session, or one read the
    other's. An accepted call may still have been dropped (a write-behind store that creates a
    session only if none exists), so a later refusal alone shows nothing. A round is judged where
    a call was accepted and every accepted caller's second heartbeat fitted in a stated
    allowance."""
    mcp.require_other_caller()
    await mcp.require_made_up_sessions()
    rounds: list[dict[str, str]] = []
    details["rounds"] = rounds
    problems = Problems.listed(
        "each caller's answers about a session of its own, or refusals that say nothing of the other's",
        lead="callers A and B sent the first heartbeat for one new session id together: ",
    )
    judged = 0
    async with mcp.other_caller() as other:
        callers = {"A": mcp, "B": other}
        for n in range(RACE_ROUNDS):
            sid = new_session_id()
            steps = {name: marker(f"race-{name}") for name in callers}
            # Each caller's call is put on the wire first in some round: a check that holds one way
            # only shows when the other caller's call is the one that creates.
            order = ["A", "B"] if n % 2 == 0 else ["B", "A"]
            first = await _together({name: callers[name] for name in order}, sid, steps)
            accepted = [name for name in callers if first[name].succeeded]
            then: dict[str, ToolReply] = {}
            with contextlib.suppress(AllowanceSpent):
                for name in accepted:
                    then[name] = await callers[name].heartbeat(sid)
            rounds.append(
                {
                    name: f"{first[name].describe()}; then {then[name].describe() if name in then else '-'}"
                    for name in callers
                }
            )
            judged += bool(accepted) and len(then) == len(accepted)
            for name, theirs in (("A", "B"), ("B", "A")):
                seen = [answer for answer in (first[name], then.get(name)) if answer is not None]
                if any(steps[theirs] in _all_text(answer) for answer in seen):
                    problems.add(
                        None,
                        f"caller {name} was answered with caller {theirs}'s step {steps[theirs]!r} (session {sid!r})",
                    )
    problems.judge()
    if not judged:
        raise MissingInput(
            f"no round of {RACE_ROUNDS} could be judged: the server refused both callers' first heartbeats sent "
            "together, or a caller's second heartbeat would have passed the stated allowance"
        )


async def _together(callers: dict[str, McpTarget], sid: str, steps: dict[str, str]) -> dict[str, ToolReply]:
    """Each caller's heartbeat for ``sid``, with its own step, all sent at the same moment."""
    first: dict[str, ToolReply] = {}

    async def send(name: str) -> None:
        first[name] = await callers[name].heartbeat(sid, status="active", currentStep=steps[name])

    async with anyio.create_task_group() as tg:
        for name in callers:
            tg.start_soon(send, name)
    return first


@case("heartbeat.access.other-surfaces", level=Level.MUST, spec=ACCESS, needs=("heartbeat",))
async def other_caller_reads_nothing_elsewhere(mcp: McpTarget, details: dict) -> None:
    """Caller B asks every other surface the server offers about caller A's session: the resources
    it lists (each read) and its resource templates filled with A's session id, the prompts it
    lists (each got with A's session id), and each other tool it lists (called with A's session
    id where its inputSchema names one). No answer to B carries A's step or instruction, nor A's
    session id where B did not name it. Judged only where A's own reads of the same surfaces show
    A's session: a surface that shows its owner nothing cannot show it to anyone."""
    mcp.require_other_caller()
    sid, step, secret = await _session_with_secrets(mcp)
    secrets = [s for s in (step, secret) if s is not None]
    own = await _surfaces(mcp, sid)
    if not own:
        raise NotApplicable(
            f"the server offers nothing besides {TOOL}: no resources, resource templates, prompts or other tools"
        )
    shown = [label for label, named, text in own if _shown(text, secrets, sid, named)]
    async with mcp.other_caller() as other:
        theirs = await _surfaces(other, sid)
    details["surfaces"] = {"asked": [label for label, _, _ in theirs], "show A's session to A": shown}
    leaks = [
        f"{label}: {', '.join(repr(found[:60]) for found in _shown(text, secrets, sid, named))}"
        for label, named, text in theirs
        if _shown(text, secrets, sid, named)
    ]
    if leaks:
        raise Violation(
            f"caller B learned caller A's session through a surface other than {TOOL}: "
            + "; ".join(leaks[:4]),
            expected="nothing of another caller's session on any surface the server offers (refused, or empty)",
            observed=leaks,
        )
    if not shown:
        raise MissingInput(
            "no other surface the server offers shows caller A's session to A itself ("
            + ", ".join(label for label, _, _ in own[:6])
            + "), so none could show it to caller B"
        )


def _shown(text: str, secrets: list[str], sid: str, named: bool) -> list[str]:
    """What of the session a surface's answer carries: its secrets, and its id where the request
    did not name it (an id echoed back to whoever gave it reveals nothing)."""
    return [s for s in secrets if s in text] + ([sid] if not named and sid in text else [])


LIST_PAGES = 10  # pages of one list followed (a server may page a long list)
BLOB_CHARS = 65_536  # of a base64 blob decoded to be searched


async def _surfaces(target: McpTarget, sid: str) -> list[tuple[str, bool, str]]:
    """Each answer the server's other surfaces give about session ``sid``: (what was asked, whether
    the request named ``sid``, the answer's text, with any base64 blob decoded). Every free
    argument and template variable carries ``sid``, whatever its name. Lists are followed for
    LIST_PAGES pages; the resources read are those whose URI names ``sid``, and the first
    MAX_TOOLS others."""
    got: list[tuple[str, bool, str]] = []

    async def ask(label: str, method: str, params: dict[str, Any]) -> Any:
        reply = await target.request(method, params)
        body = reply.result if reply.ok else reply.error
        got.append((label, sid in json.dumps(params), _searchable(body)))
        return reply.result if reply.ok else None

    async def pages(method: str, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        for page in range(LIST_PAGES):
            result = await ask(method + (f" (page {page + 1})" if page else ""), method, params)
            found = result.get(key) if isinstance(result, dict) else None
            items += [i for i in found if isinstance(i, dict)] if isinstance(found, list) else []
            cursor = result.get("nextCursor") if isinstance(result, dict) else None
            if not isinstance(cursor, str) or not cursor:
                break
            params = {"cursor": cursor}
        return items

    capabilities = (target.era.capabilities if target.era is not None else None) or {}
    if isinstance(capabilities, dict) and "resources" in capabilities:
        uris = [str(r.get("uri")) for r in await pages("resources/list", "resources") if r.get("uri")]
        uris = [u for u in uris if sid in u] + [u for u in uris if sid not in u][:MAX_TOOLS]
        for template in (await pages("resources/templates/list", "resourceTemplates"))[:MAX_TOOLS]:
            if isinstance(pattern := template.get("uriTemplate"), str):
                uris += dict.fromkeys((fill_template(pattern, sid), _fill_every(pattern, sid)))
        for uri in dict.fromkeys(uris):
            await ask(f"resources/read {uri[:80]}", "resources/read", {"uri": uri})
    if isinstance(capabilities, dict) and "prompts" in capabilities:
        for prompt in (await pages("prompts/list", "prompts"))[:MAX_TOOLS]:
            names = [str(a.get("name")) for a in prompt.get("arguments") or [] if isinstance(a, dict)]
            await ask(
                f"prompts/get {str(prompt.get('name'))[:60]}",
                "prompts/get",
                {"name": prompt.get("name"), "arguments": dict.fromkeys(names[:20], sid)},
            )
    for tool in [t for t in target.tools if str(t.get("name")) not in (TOOL, UNLISTED_TOOL)][:MAX_TOOLS]:
        name = str(tool.get("name"))
        if name:
            arguments = _naming(tool.get("inputSchema"), sid)
            await ask(f"tools/call {name[:60]}", "tools/call", {"name": name, "arguments": arguments})
    return got


def _naming(schema: Any, sid: str) -> dict[str, Any]:
    """Arguments for a tool's inputSchema (arguments_for) with ``sid`` in every free string
    property, whatever its name: an id argument need not say it is a session's."""
    arguments = arguments_for(schema, sid)
    properties = schema.get("properties") if isinstance(schema, dict) else None
    for name, spec in list(properties.items())[:40] if isinstance(properties, dict) else []:
        spec = spec if isinstance(spec, dict) else {}
        if spec.get("type") in (None, "string") and not {"enum", "const", "format"} & spec.keys():
            arguments[str(name)] = sid
    return arguments


def _fill_every(template: str, sid: str) -> str:
    """A URI template with ``sid`` in every variable."""
    return re.sub(r"\{[^}]{1,100}\}", sid, template)


def _searchable(body: Any) -> str:
    """An answer's JSON text, and the text of each base64 blob in it (a resource's contents may
    carry the session's data as a blob)."""
    text = json.dumps(body, ensure_ascii=False)
    blobs: list[str] = []

    def walk(value: Any, depth: int = 0) -> None:
        if depth > 8 or len(blobs) > 20:
            return
        if isinstance(value, dict):
            if isinstance(blob := value.get("blob"), str):
                with contextlib.suppress(ValueError):
                    blobs.append(
                        base64.b64decode(blob[:BLOB_CHARS], validate=False).decode("utf-8", "replace")
                    )
            for item in value.values():
                walk(item, depth + 1)
        elif isinstance(value, list):
            for item in value[:100]:
                walk(item, depth + 1)

    walk(body)
    return "\n".join([text, *blobs])


@case("heartbeat.access.other-caller-no-change", level=Level.MUST, spec=ACCESS, needs=("heartbeat",))
async def other_caller_changes_nothing(mcp: McpTarget, details: dict) -> None:
    """Caller B's heartbeat for A's session (state, acknowledgements) changes nothing of it."""
    mcp.require_other_caller()
    probe, unreadable = await calibrated(mcp)
    sid = new_session_id()
    kept, written = probe.values(2) if probe is not None else (None, None)
    await mcp.ok_heartbeat(sid, **(probe.write(kept) if probe is not None else {"status": "waiting"}))
    # Two instructions delivered alike; B acknowledges one. Redelivery is a MAY: only the other
    # coming again shows what the server would have redelivered.
    text, control = marker("kept-from-b"), marker("control-from-b")
    ids, unread = await mcp.delivered_ids(sid, text, control)
    if not ids and probe is None:
        raise MissingInput(
            "nothing shows whether caller B changed caller A's session: "
            + unreadable
            + "; and no instruction of A's delivered to acknowledge"
            + unread
            + ("" if mcp.can_instruct else " (needs --instruct-cmd or --instruct-url)")
        )
    changes: dict[str, Any] = {"acknowledgedInstructionIds": ids}
    if probe is not None:
        changes |= probe.write(written)
    async with mcp.other_caller() as other:
        await other.heartbeat(sid, **changes)
    problems = Problems.listed(
        "A's session as A left it: its state as A wrote it, its instruction still pending",
    )
    unseen = ""
    if ids:
        after, _ = await mcp.drain(sid)
        if has(after, control) and not has(after, text):
            problems.add(None, "caller B's acknowledgement removed caller A's pending instruction")
        elif not has(after, control):
            unseen = (
                "the server did not deliver A's unacknowledged control instruction again (a MAY), so whether "
                "B's acknowledgement removed its twin does not show"
            )
    if probe is not None:
        with problems.kept(details):  # the read refused keeps the instruction already shown removed
            now = await probe.read(mcp, sid)
        if not same(now, kept):
            problems.add(None, f"caller B's heartbeat changed the session's {probe.field} to {now!r}")
    problems.judge()
    if unseen and probe is None:
        raise MissingInput(f"{unseen}; and {unreadable}")


@case("heartbeat.access.other-caller-replay", level=Level.MUST, spec=ACCESS, needs=("heartbeat",))
async def other_caller_replay_is_rejected(mcp: McpTarget, details: dict) -> None:
    """Caller B sending caller A's exact call (same session id, key and arguments) is not answered
    with A's result: refused, or executed as a call of B's own session (ids scoped per caller)."""
    mcp.require_other_caller()
    sid, step, secret = await _session_with_secrets(mcp)
    call = {"idempotencyKey": new_key(), "progressPercent": 20}
    own = await mcp.ok_heartbeat(sid, **call)  # its result may show A's step and instruction: B sends neither
    async with mcp.other_caller() as other:
        reply = await other.heartbeat(sid, **call)
    details["reply_to_b"] = reply.result if reply.reply.ok else reply.describe()
    leaked = [s for s in (step, secret) if s is not None and s in _all_text(reply)]
    if leaked:
        raise Violation(
            "caller B's replay of caller A's call (same session, key and arguments) was "
            + ("rejected" if reply.rejected else "answered")
            + " with caller A's "
            + " and ".join(repr(s) for s in leaked),
            expected="an error that says nothing of A's session, or an answer about a session of B's own",
            observed=reply.describe(),
        )
    if not reply.rejected and not any(s is not None and s in _all_text(own) for s in (step, secret)):
        raise MissingInput(
            "caller B's replay of caller A's call was answered, and caller A's own answer to that call shows neither "
            "its step nor its instruction, so whether B got A's result does not show"
        )


@case("heartbeat.access.same-caller-reconnect", level=Level.MUST, spec=ACCESS, needs=("heartbeat",))
async def same_caller_keeps_its_sessions(mcp: McpTarget, details: dict) -> None:
    """The same caller on a second connection (the same credentials, a handshake of its own: a
    client that reconnected) is the same principal with the same scopes: the session it made on the
    first is its own there too. A heartbeat for it is answered, shows the state written on the first
    connection, and an instruction pending for it is delivered; each judged only where the first
    connection does so after. Access follows the credentials, not the protocol session."""
    await _in_each_era(mcp, details, lambda there: _reconnect(there, details))


@case("heartbeat.access.same-caller-retry", level=Level.MUST, spec=RETRIES, needs=("heartbeat",))
async def same_caller_retries_on_new_connection(mcp: McpTarget, details: dict) -> None:
    """A retry (same key, same arguments) sent on a second connection of the same caller (the
    answer to the first was lost with its connection: the safe retry keys exist for) is answered
    wherever the same retry is answered on the first connection."""
    await _in_each_era(mcp, details, _retry_elsewhere)


@case(
    "heartbeat.access.connection-end-keeps-state",
    level=Level.MUST,
    spec=DELIVERY,
    rules=CONNECTION_END_RULES,
    needs=("heartbeat",),
)
async def connection_end_keeps_state(mcp: McpTarget, details: dict) -> None:
    """A connection that ends as the SDK's client ends it (closed: in the handshake era a DELETE of
    its protocol session) takes nothing with it: heartbeat sessions are named by their sessionId,
    not by a connection. A session written on that connection, one written on the caller's other
    connection, and (with --other-header) one caller B wrote on its only connection, asked on a
    connection of B's own after it ended, each keep the state they last reported, get the
    instruction pending for them delivered, and a retry of a call made before (the same key and
    arguments) is not applied again. In the handshake era they are asked a hold after the end (a
    release done in the background shows by then), within any time to live the user stated."""
    await _in_each_era(mcp, details, lambda there: _connection_ends(there, details))


@dataclass(frozen=True)
class _Written:
    """A session written before a connection ended: its id, the call a retry repeats and the
    value it wrote, the value written after it (None without a readable field), the instruction
    pending for it."""

    session_id: str
    retried: dict[str, Any]
    first: Any
    last: Any
    pending: str | None


async def _write(conn: McpTarget, probe: StateProbe | None, where: str) -> _Written:
    sid, key = new_session_id(), new_key()
    values = probe.values(2) if probe is not None else [None, None]
    retried = {
        "idempotencyKey": key,
        **(probe.write(values[0]) if probe is not None else {"progressPercent": 10}),
    }
    await conn.ok_heartbeat(sid, **retried)
    await conn.ok_heartbeat(sid, **(probe.write(values[1]) if probe is not None else {"progressPercent": 60}))
    pending = marker(f"{where}-instruction") if conn.can_instruct else None
    if pending is not None:  # after the session's last heartbeat: pending, not yet delivered
        await enqueue(conn, sid, pending)
    return _Written(sid, retried, values[0], values[1], pending)


async def _kept(
    conn: McpTarget, probe: StateProbe | None, where: str, session: _Written, problems: Problems, shown: dict
) -> None:
    """Asked on ``conn``: the retry first (one heartbeat after the call it repeats, as
    heartbeat.idempotency.not-applied-twice asks it), then the state, then the delivery."""
    sid = session.session_id
    retry = await conn.call({"sessionId": sid, **session.retried})
    shown[where] = retry.data if retry.succeeded else retry.describe()
    if retry.rejected:
        problems.add("state", f"a retry for the session written {where} was refused: {retry.describe()}")
        return
    # One heartbeat reads the state and may deliver: a server may deliver an instruction once.
    reply = await read(conn, sid, probe.field) if probe is not None else await conn.heartbeat(sid)
    if probe is not None:
        now = probe.value_in(reply.data)
        if same(now, session.first):
            problems.add(
                "retry",
                f"a retry (same idempotencyKey and arguments) of a call made {where} set {probe.field} back to "
                f"{now!r}: applied a second time",
            )
        elif not same(now, session.last):
            problems.add(
                "state",
                f"the session written {where} showed {probe.field} {now!r}, not the {session.last!r} it last reported",
            )
    if (
        session.pending is not None
        and not has(_items(conn, [reply]), session.pending)
        and (await conn.await_delivery(sid, [session.pending])).missing
    ):
        problems.add(
            "instructions", f"the instruction pending for the session written {where} was never delivered"
        )


async def _ask_all(
    conn: McpTarget, probe: StateProbe | None, sessions: dict[str, _Written], problems: Problems, shown: dict
) -> None:
    for where, session in sessions.items():
        await _kept(conn, probe, where, session, problems, shown)


async def _connection_ends(first: McpTarget, details: dict) -> dict[str, Any]:
    assert first.era is not None
    era = first.era.version
    probe, unreadable = await calibrated(first)
    problems = Problems.listed(
        "every session as it was: the state it last reported, its pending instructions delivered, a retry "
        "answered without applying it again",
        lead=f"over MCP {era}, after a connection ended (closed as the SDK's client closes it): ",
        rules=CONNECTION_END_RULES,
    )
    shown: dict[str, Any] = {}
    # Under a stated cap of a few sessions, sessions written together may evict each other (a cap
    # of N may hold N - 1): a policy, not a connection's end. Then each connection's end is asked
    # by itself, with only the session written on it.
    cap = first.options.session_cap
    alone = cap is not None and cap < 4
    with problems.kept(details):
        since = time.monotonic()
        mine = {} if alone else {"on the caller's other connection": await _write(first, probe, "kept")}
        async with first.same_caller() as again:
            mine["on the connection that ended"] = await _write(again, probe, "ended")
        if alone:  # asked now, before caller B writes a session of its own
            await _settle(first, since, details)
            await _ask_all(first, probe, mine, problems, shown)
            mine, since = {}, time.monotonic()
        theirs = None
        if first.harness.config.transport == "http" and first.options.other_headers is not None:
            async with first.other_caller() as caller_b:
                theirs = await _write(caller_b, probe, "other-caller")
        await _settle(first, since, details)
        await _ask_all(first, probe, mine, problems, shown)
        if theirs is not None:
            async with first.other_caller() as caller_b:
                await _kept(caller_b, probe, "by caller B on its only connection", theirs, problems, shown)
    problems.judge()
    if probe is None and not first.can_instruct:
        raise MissingInput(
            f"nothing shows what a session kept: {unreadable}; and no instruction to deliver (needs --instruct-cmd or "
            "--instruct-url)"
        )
    return {"retries after the connection ended": shown}


async def _settle(conn: McpTarget, since: float, details: dict) -> None:
    """In the handshake era, a hold after a connection's end: a release done after its DELETE was
    answered shows by then. Within any time to live the user stated, counted from ``since``, when
    the sessions asked were written."""
    assert conn.era is not None
    if conn.era.modern:
        return
    wait, said = held_for(conn, await idle_ttl(conn), since)
    await anyio.sleep(wait)
    details[f"asked after a connection ended (MCP {conn.era.version})"] = said


async def _in_each_era(
    mcp: McpTarget, details: dict, check: Callable[[McpTarget], Awaitable[dict[str, Any]]]
) -> None:
    """``check`` in the run's era and, when that is the stateless one (every request a connection
    of its own: nothing to tie to a connection), in the handshake era too where the server speaks
    it, where a connection is a protocol session (Mcp-Session-Id) a server could tie things to."""
    mcp.require_second_connection()
    details.update(await mcp.in_each_era(check, details))


async def _reconnect(first: McpTarget, details: dict) -> dict[str, Any]:
    assert first.era is not None
    era = first.era.version
    probe, unreadable = await calibrated(first)
    sid = new_session_id()
    written = probe.values(1)[0] if probe is not None else None
    await first.ok_heartbeat(
        sid, **({"status": "waiting"} | (probe.write(written) if probe is not None else {}))
    )
    pending = marker("reconnect-instruction") if first.can_instruct else None
    if pending is not None:  # after the session's last heartbeat: pending, not yet delivered
        await enqueue(first, sid, pending)
    async with first.same_caller() as again:
        reply = await again.heartbeat(sid)
        shown: Any = None
        arrived = False
        if not reply.rejected:
            if pending is not None:
                arrived = has(_items(again, [reply]), pending)
                arrived = arrived or not (await again.await_delivery(sid, [pending])).missing
            if probe is not None:
                shown = await probe.read(again, sid)
    control = await first.heartbeat(sid)
    # The control heartbeat may deliver what the second connection did not: read it as a delivery.
    delivered_first = _items(first, [control]) if control.succeeded else []
    problems = Problems(
        lambda found: Violation(
            f"over MCP {era}, the same caller on a second connection (same credentials, a new handshake): "
            + "; ".join(p for _, p in found),
            expected="the caller's session as its first connection sees it: answered, its state, its pending "
            "instructions",
            observed=[p for _, p in found],
        )
    )
    if reply.rejected and control.rejected:
        raise NotTestable(
            f"over MCP {era}, a heartbeat for a session that took one before was refused on both connections of the "
            f"caller: {control.describe()}"
        )
    if reply.rejected:
        problems.add(None, f"its heartbeat for its own session was refused: {reply.describe()}")
    # The first connection's reads that judge what the second showed: one refused or unanswered
    # keeps what was already shown there (its state), the signal in details.
    with problems.kept(details):
        if not reply.rejected and probe is not None and not same(shown, written):
            now = await probe.read(first, sid)
            if same(now, written):
                problems.add(
                    None,
                    f"its session showed {probe.field} {shown!r}, not the {written!r} it wrote on the first "
                    "connection (a session of that connection's own)",
                )
        if (
            not reply.rejected
            and pending is not None
            and not arrived
            and (has(delivered_first, pending) or not (await first.await_delivery(sid, [pending])).missing)
        ):
            problems.add(
                None,
                "an instruction pending for its session was not delivered there, and then was on the first "
                "connection",
            )
    problems.judge()
    if probe is None and pending is None and not reply.rejected:
        raise MissingInput(
            "the second connection's heartbeat was answered, but nothing shows it was about the same session: "
            + unreadable
            + "; and no instruction to deliver (needs --instruct-cmd or --instruct-url)"
        )
    return {"reply_on_second_connection": reply.result if reply.reply.ok else reply.describe()}


async def _retry_elsewhere(first: McpTarget) -> dict[str, Any]:
    assert first.era is not None
    sid, key = new_session_id(), new_key()
    call = {"sessionId": sid, "idempotencyKey": key, "progressPercent": 30}
    await first.ok_heartbeat(sid, status="active")
    await first.ok_heartbeat(sid, **{k: v for k, v in call.items() if k != "sessionId"})
    async with first.same_caller() as again:
        retry = await again.call(call)
    control = await first.call(call)
    if not retry.succeeded and not control.succeeded:
        raise NotTestable(
            f"over MCP {first.era.version}, a retry (same idempotencyKey and arguments) was refused on both "
            f"connections of the caller (heartbeat.idempotency.retry-answered judges that): {control.describe()}"
        )
    if not retry.succeeded:
        raise Violation(
            f"over MCP {first.era.version}, the caller's retry (same idempotencyKey and arguments) was refused on its "
            "second connection (same credentials, a new handshake), and answered on the first: a client that lost "
            "its connection with the answer cannot learn what its call did",
            expected="the retry answered on any connection of the same caller",
            observed=retry.describe(),
        )
    return {"retry_on_second_connection": retry.data if retry.succeeded else retry.describe()}


def _items(mcp: McpTarget, replies: list[ToolReply]) -> list[Any]:
    try:
        return mcp.items_of(replies)
    except (NoInstructionList, MissingInput):  # no list yet: results may omit it while it is empty
        return []


def _all_text(reply: ToolReply) -> str:
    body = reply.reply.result if reply.reply.ok else reply.reply.error
    return json.dumps(body, ensure_ascii=False)

"""MCP `session_heartbeat` over both protocol eras: the tool does what it does whatever the wire.

MCP 2025-06-18 opens a connection with ``initialize``; MCP 2026-07-28 has no handshake, no
protocol session, and an envelope on every request (conformance/targets/mcp/era.py). The tool's
spec (cases/revisions/sources/mcp-session-heartbeat-2025-06-18.txt) is the same under both: a
server that speaks both must answer the same calls alike. In the stateless era, results identify the server that produced them (the
2026-07-28 schema's ``io.modelcontextprotocol/serverInfo``), since no handshake does.
"""

from __future__ import annotations

import json
import statistics
import uuid
from typing import Any

import anyio

from conformance.core.outcomes import NotApplicable, NotTestable, Violation
from conformance.core.registry import Level, case
from conformance.core.revisions import requirement
from conformance.targets import slow_reader
from conformance.targets.mcp import differential
from conformance.targets.mcp.era import (
    CLIENT_INFO,
    HANDSHAKE_VERSIONS,
    SERVER_INFO_KEY,
    UNSUPPORTED_PROTOCOL_VERSION,
    identity,
)
from conformance.targets.mcp.target import TOOL, McpTarget, new_key, new_session_id
from conformance.transport.peer import id_key

# "Report session status, progress, and the current step."
PURPOSE = requirement("mcp-session-heartbeat-2025-06-18", "purpose")
# "Identifies the server software producing the response. Servers SHOULD include this field on …"
SERVER_INFO = requirement("mcp-session-heartbeat-2025-06-18", "server-info")
# "Otherwise, the server MUST respond with another protocol version it supports."
NEGOTIATION = requirement("mcp-session-heartbeat-2025-06-18", "version-negotiation")
# "It MUST be the same as the value of the id member in the Request Object."
ID_ECHO = requirement("mcp-session-heartbeat-2025-06-18", "id-echo")
# "The Server MUST NOT reply to a Notification, including those that are within a batch request."
NOTIFICATION = requirement("mcp-session-heartbeat-2025-06-18", "notification")
# "Servers that emit log message notifications MUST declare the `logging` capability"
NEGOTIATED = requirement("mcp-session-heartbeat-2025-06-18", "negotiated-notifications")
# "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."
REPLY = requirement("mcp-session-heartbeat-2025-06-18", "reply")
# "Progress notifications MUST stop after completion"
PROGRESS_ENDS = requirement("mcp-session-heartbeat-2025-06-18", "progress-ends")
# "If present, the ID MUST be globally unique across all streams within that session, or all …"
EVENT_IDS = requirement("mcp-session-heartbeat-2025-06-18", "event-ids-unique")
# A protocol revision no MCP server supports: dated before MCP existed.
UNSUPPORTED_ASKED = "1999-01-01"
# The notifications a server may send only under a capability its handshake declared: the
# capability, and the member of it that must be true (None: the capability's presence).
DECLARED_BY: dict[str, tuple[str, str | None]] = {
    "notifications/message": ("logging", None),
    "notifications/tools/list_changed": ("tools", "listChanged"),
    "notifications/resources/list_changed": ("resources", "listChanged"),
    "notifications/prompts/list_changed": ("prompts", "listChanged"),
    "notifications/resources/updated": ("resources", "subscribe"),
}
# How long progress is watched for after the last result, unless --hold says: a write-behind or
# a queue sends late progress within milliseconds, and the case runs in every era a run watches.
PROGRESS_WATCH = 1.0
# An unlisted tool's name, called so that the server's error path runs too.
UNLISTED_TOOL = "conformance_unlisted_tool"
# The slow reader's burst: at most this many requests, every HEARTBEAT_EVERY-th a heartbeat.
BURST_MOST = 1024
HEARTBEAT_EVERY = 16
# Characters of text one to four bytes wide in each burst request's id (slow_reader.wide_text).
WIDE_ID_CHARS = 600


@case("heartbeat.wire.same-answers", level=Level.SHOULD, spec=PURPOSE, needs=("heartbeat",))
async def eras_answer_alike(mcp: McpTarget, details: dict) -> None:
    """The same heartbeats, over the run's era and the other one, are accepted or refused alike
    and show the state they wrote alike (outside what differs between two runs of one era)."""
    await mcp.require_made_up_sessions()
    assert mcp.era is not None
    ours = mcp.era.version
    async with mcp.other_era() as there:
        assert there.era is not None
        theirs_version = there.era.version
        details["eras"] = [ours, theirs_version]
        first = await differential.run(mcp, new_session_id(), "first")
        second = await differential.run(mcp, new_session_id(), "second")
        unsteady = differential.noise(first, second)
        details["unsteady_steps"] = sorted(n + 1 for n in unsteady[0])
        if len(unsteady[0]) == len(differential.SCRIPT):
            raise NotTestable(
                f"two runs of the same heartbeats over {ours} were accepted and refused differently at every "
                "step: there is nothing steady to compare the other era with"
            )
        await there.require_made_up_sessions()
        theirs = await differential.run(there, new_session_id(), "other-era")
    found = differential.differences(first, theirs, unsteady, our_era=ours, their_era=theirs_version)
    details["differences"] = found[:20]
    details["compared_values"] = sum(len(o.shown) for o in first)
    if found:
        raise Violation(
            f"the same heartbeats are answered differently over MCP {ours} and MCP {theirs_version} (the tool's "
            f"contract does not depend on the wire), at {len(found)} step(s): "
            + "; ".join(found[:3])
            + ("; …" if len(found) > 3 else ""),
            expected="the same calls accepted or refused alike, the state they wrote shown alike, in either era",
            observed=found[:10],
        )


@case("heartbeat.wire.server-identity", level=Level.SHOULD, spec=SERVER_INFO, needs=("heartbeat",))
async def results_identify_the_server(mcp: McpTarget, details: dict) -> None:
    """In the stateless era, server/discover's result and every later result carry the server's
    identity (name and version) in _meta."""
    assert mcp.era is not None
    if not mcp.era.modern:
        raise NotApplicable(
            f"the run speaks MCP {mcp.era.version}, whose initialize answer names the server once (serverInfo); "
            "the per-result identity is the stateless era's (--mcp-protocol 2026-07-28)"
        )
    listed = await mcp.request("tools/list", {})
    heartbeat = await mcp.heartbeat(new_session_id())
    answers: list[tuple[str, Any]] = [
        ("server/discover", mcp.era.result),
        ("tools/list", listed.result if listed.ok else None),
        ("tools/call (a heartbeat)", heartbeat.result if heartbeat.reply.ok else None),
    ]
    missing, malformed = [], []
    for what, result in answers:
        if not isinstance(result, dict):
            continue  # an error answer: JSON-RPC errors carry no result _meta
        meta = result.get("_meta")
        raw = meta.get(SERVER_INFO_KEY) if isinstance(meta, dict) else None
        info = identity(result)
        details[what] = info
        if raw is None:
            missing.append(what)
        elif not (
            isinstance(raw, dict) and isinstance(raw.get("name"), str) and isinstance(raw.get("version"), str)
        ):
            malformed.append(f"{what}: {str(raw)[:120]}")
    if missing or malformed:
        said = []
        if missing:
            said.append(f"no _meta[{SERVER_INFO_KEY!r}] in the result of {', '.join(missing)}")
        if malformed:
            said.append(f"an identity without a string name and version ({'; '.join(malformed)})")
        raise Violation(
            "the stateless era's results do not identify the server: " + "; ".join(said),
            expected=f'_meta["{SERVER_INFO_KEY}"]: {{"name": …, "version": …}} on every result',
            observed={what: details.get(what) for what, _ in answers},
        )


@case("heartbeat.wire.version-negotiation", level=Level.MUST, spec=NEGOTIATION, needs=("heartbeat",))
async def unsupported_version_not_echoed(mcp: McpTarget, details: dict) -> None:
    """initialize asking for a protocol revision no server supports is answered with a revision of
    the handshake era the server supports, never the one asked for."""
    async with mcp.fresh_connection("negotiation") as (peer, _):
        params = {"protocolVersion": UNSUPPORTED_ASKED, "capabilities": {}, "clientInfo": dict(CLIENT_INFO)}
        reply = await peer.request("initialize", params)
    if not reply.ok:
        if reply.code == UNSUPPORTED_PROTOCOL_VERSION:  # the stateless era refuses any initialize so
            raise NotApplicable(
                f"the server does not speak the handshake era: initialize was refused with {reply.describe()}"
            )
        raise Violation(
            f"initialize asking for protocolVersion {UNSUPPORTED_ASKED!r} was refused with {reply.describe()}; a "
            "server that does not support the requested version answers with one it supports",
            expected="a result with a protocolVersion the server supports",
            observed=reply.describe(),
        )
    answered = reply.result.get("protocolVersion") if isinstance(reply.result, dict) else None
    details["answered"] = str(answered)[:60]
    if answered == UNSUPPORTED_ASKED:
        raise Violation(
            f"initialize asking for protocolVersion {UNSUPPORTED_ASKED!r}, a revision no MCP server supports, was "
            "answered with that same version: the server echoes what it is asked for instead of answering a "
            "version it supports",
            expected=f"one of {', '.join(HANDSHAKE_VERSIONS)} (the revisions of the handshake era)",
            observed=answered,
        )
    if answered not in HANDSHAKE_VERSIONS:
        raise Violation(
            f"initialize asking for protocolVersion {UNSUPPORTED_ASKED!r} was answered with {str(answered)[:60]!r}, "
            "which is no MCP revision of the handshake era",
            expected=f"one of {', '.join(HANDSHAKE_VERSIONS)}",
            observed=str(answered)[:200],
        )


def _heartbeat_frame(mcp: McpTarget, frame_id: Any, session_id: str, **fields: Any) -> dict[str, Any]:
    """A tools/call of the heartbeat as a raw frame, in the run's era (no id: a notification)."""
    from conformance.targets.mcp import era as eras

    params: dict[str, Any] = {
        "name": "session_heartbeat",
        "arguments": {"sessionId": session_id, "idempotencyKey": new_key(), **fields},
    }
    if mcp.era is not None and mcp.era.modern:
        params = eras.stamp(params, mcp.era.version)
    frame: dict[str, Any] = {"jsonrpc": "2.0", "method": "tools/call", "params": params}
    if frame_id is not None:
        frame["id"] = frame_id
    return frame


@case("heartbeat.wire.request-ids", level=Level.MUST, spec=ID_ECHO, needs=("heartbeat",))
async def string_and_number_ids_echoed(mcp: McpTarget, details: dict) -> None:
    """Heartbeats sent with a string id, a large number id, the ids 0 and -1, and a string id of
    characters outside ASCII are each answered under that very id (the same JSON type and value):
    an id that is falsy, negative or wide is an id like any other."""
    await mcp.require_made_up_sessions()
    wrong = []
    for frame_id in (
        f"conformance-{uuid.uuid4().hex[:12]}",
        2**31 + 12345,
        0,
        -1,
        f"é-中-😀-{uuid.uuid4().hex[:6]}",
    ):
        line = json.dumps(_heartbeat_frame(mcp, frame_id, new_session_id(), status="active")).encode()
        reply = await mcp.peer.exchange_raw(line, frame_id, wait=True, timeout=mcp.harness.config.timeout)
        got = reply.frame if reply.frame is not None else reply.stray
        answered = got.get("id") if isinstance(got, dict) else None
        if reply.frame is None or type(answered) is not type(frame_id) or answered != frame_id:
            wrong.append(f"id {frame_id!r} answered under id {answered!r}")
    if wrong:
        raise Violation(
            "; ".join(wrong),
            expected="each response under the id of its request, of the same JSON type",
            observed=wrong,
        )


@case(
    "heartbeat.wire.notification-unanswered", level=Level.ROBUSTNESS, spec=NOTIFICATION, needs=("heartbeat",)
)
async def heartbeat_notification_unanswered(mcp: McpTarget, details: dict) -> None:
    """A heartbeat sent as a notification (no id) gets no response; the next request is answered
    as usual."""
    await mcp.require_made_up_sessions()
    answer = await _answer_to_notification(
        mcp, _heartbeat_frame(mcp, None, new_session_id(), status="active")
    )
    if answer is not None:
        raise Violation(
            "a tools/call of session_heartbeat sent as a notification (no id) was answered",
            expected="no response to a notification",
            observed=[answer],
        )


@case(
    "heartbeat.wire.client-notifications-unanswered",
    level=Level.MUST,
    spec=NOTIFICATION,
    needs=("heartbeat",),
)
async def client_notifications_unanswered(mcp: McpTarget, details: dict) -> None:
    """A notification every MCP client sends, notifications/cancelled for a request the server
    does not know (which it MAY ignore), gets no response; the next request is answered as usual."""
    await mcp.require_made_up_sessions()
    frame = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": f"conformance-{uuid.uuid4().hex[:12]}", "reason": "conformance"},
    }
    answer = await _answer_to_notification(mcp, frame)
    if answer is not None:
        raise Violation(
            "notifications/cancelled, a notification MCP clients send, was answered",
            expected="no response to a notification",
            observed=[answer],
        )


async def _answer_to_notification(mcp: McpTarget, frame: dict[str, Any]) -> Any:
    """What the server answered to the notification ``frame`` (None: nothing). An answer would
    come under id null: caught here, and judged by the case rather than taken for a response to no
    request. A request follows it: on one connection its answer comes after any answer to the
    notification."""
    pending = mcp.peer.expect(None)
    try:
        await mcp.peer.send_raw(json.dumps(frame).encode())
        await mcp.ok_heartbeat(new_session_id())
        await anyio.sleep(mcp.settle)
    finally:
        mcp.peer.unexpect(None)
    return pending.frame


def undeclared(methods: list[str], capabilities: Any) -> dict[str, str]:
    """Each notification method the server sent that its declared capabilities do not allow, with
    what it would have needed; ``methods`` holds progress only for tokens the suite did not send."""
    caps = capabilities if isinstance(capabilities, dict) else {}
    found: dict[str, str] = {}
    for method in methods:
        if method == "notifications/progress":
            found[method] = "a progressToken the suite sent in the request it reports on"
            continue
        if method not in DECLARED_BY:
            continue
        name, member = DECLARED_BY[method]
        declared = caps.get(name)
        if not isinstance(declared, dict) or (member is not None and declared.get(member) is not True):
            found[method] = f"capabilities.{name}" + (f".{member}: true" if member else "")
    return found


async def _notifications_judged(target: McpTarget) -> dict[str, Any]:
    """Heartbeats, a refused call, an unlisted tool's call and tools/list on this connection, then
    every notification it carried since its handshake against the capabilities that declared."""
    sid = new_session_id()
    await target.heartbeat(sid, status="active")
    await target.heartbeat(sid, status="waiting", currentStep="conformance")
    await target.call({"sessionId": sid})  # no idempotencyKey: refused
    await target.call({"sessionId": sid, "idempotencyKey": new_key()}, name=UNLISTED_TOOL)
    await target.request("tools/list", {})
    await anyio.sleep(target.settle)  # a notification sent after its request's answer
    # Progress for a token the suite sent was asked for (when it came is
    # heartbeat.wire.progress-ends-with-call's to judge).
    asked = {id_key(t) for t in target.progress_tokens}
    methods = [
        str(n.method)[:120]
        for n in target.peer.notifications
        if not (n.method == "notifications/progress" and id_key(progress_token(n.params)) in asked)
    ]
    capabilities = target.era.capabilities if target.era is not None else None
    return {
        "capabilities": capabilities,
        "sent": {m: methods.count(m) for m in sorted(set(methods))[:20]},
        "undeclared": {
            m: f"{methods.count(m)} {m} without {needed}"
            for m, needed in undeclared(methods, capabilities).items()
        },
    }


@case("heartbeat.wire.notifications-declared", level=Level.MUST, spec=NEGOTIATED, needs=("heartbeat",))
async def notifications_within_declared_capabilities(mcp: McpTarget, details: dict) -> None:
    """Every notification the server sent on the run's connection (since its handshake: the cases
    before this one, and here heartbeats, a refused call, an unlisted tool's call and tools/list),
    and on a connection of the handshake era when the run speaks the stateless one, is one its
    handshake declared: log messages under `logging`, list changes under `listChanged`, resource
    updates under `subscribe`, and no progress for a request that carried no token."""
    # A server of both eras may notify only in the one with a stream per connection.
    judged = await mcp.in_each_era(_notifications_judged, details)
    details["connections"] = judged
    shown = [
        f"over MCP {version}: " + "; ".join(j["undeclared"].values())
        for version, j in judged.items()
        if j["undeclared"]
    ]
    if shown:
        raise Violation(
            "the server sent notifications its handshake did not declare: " + "; ".join(shown),
            expected="only the notifications of the capabilities the server declared",
            observed={version: {k: j[k] for k in ("capabilities", "sent")} for version, j in judged.items()},
        )


def progress_token(params: Any) -> Any:
    return params.get("progressToken") if isinstance(params, dict) else None


@case(
    "heartbeat.wire.progress-ends-with-call",
    level=Level.MUST,
    spec=PROGRESS_ENDS,
    needs=("heartbeat",),
    slow=True,
)
async def progress_ends_with_the_call(mcp: McpTarget, details: dict) -> None:
    """Heartbeats that ask for progress (`_meta.progressToken`: two string tokens, one integer) get
    no notifications/progress for their token after their result, watched for a second (or --hold)
    after the last; progress during the call, or none at all, conforms. Over Streamable HTTP a request's
    stream ends with its result: watched only on a connection of the handshake era with a protocol
    session (Mcp-Session-Id), whose GET stream can carry what comes after."""
    await mcp.require_made_up_sessions()
    judged = await mcp.in_each_era(_late_progress, details)
    details["connections"] = judged
    watched = {version: j for version, j in judged.items() if j.get("watched")}
    if not watched:
        raise NotApplicable(
            "over Streamable HTTP a request's stream ends with its result, and the server opened no stream a "
            "notification could come on after it (no handshake era with a protocol session, Mcp-Session-Id, whose "
            "GET stream could carry one)"
        )
    shown = [f"over MCP {version}: " + "; ".join(j["late"]) for version, j in watched.items() if j["late"]]
    if shown:
        raise Violation(
            "the server sent progress for a heartbeat after the heartbeat's result, for a token whose request "
            "had completed: " + "; ".join(shown),
            expected="notifications/progress for a token only while its request is in progress, before its result",
            observed={version: j["late"] for version, j in watched.items() if j["late"]},
        )


async def _late_progress(target: McpTarget) -> dict[str, Any]:
    """Three heartbeats asking for progress, one after another, then a wait: the
    progress notifications for their tokens, before and after each one's result."""
    assert target.era is not None
    if target.harness.config.transport == "http":
        if target.era.modern:
            return {"watched": False, "why": "a stateless-era request's stream ends with its result"}
        if not getattr(target.peer.process, "protocol_session", False):
            return {
                "watched": False,
                "why": "no Mcp-Session-Id, so no GET stream: a request's stream ends with its result",
            }
    sid = new_session_id()
    tokens: list[str | int] = [
        f"conformance-progress-{uuid.uuid4().hex[:12]}",
        uuid.uuid4().int % 10**9 + 1,  # SDK clients often use the request id: an integer
        f"conformance-progress-{uuid.uuid4().hex[:12]}",
    ]
    answered: dict[str, tuple[Any, int]] = {}  # the token (id_key) -> it, and its result's transcript index
    for token, percent in zip(tokens, (20, 60, 100), strict=True):
        arguments = {
            "sessionId": sid,
            "idempotencyKey": new_key(),
            "status": "active",
            "progressPercent": percent,
        }
        reply = await target.call_with_progress(arguments, token)
        if reply.reply.index >= 0:
            answered[id_key(token)] = (token, reply.reply.index)
    config = target.harness.config
    await anyio.sleep(config.hold if config.hold is not None else min(PROGRESS_WATCH, config.hold_seconds))
    during, late = 0, []
    for note in target.peer.notifications:
        if note.method != "notifications/progress":
            continue
        found = answered.get(id_key(progress_token(note.params)))
        if found is None:
            continue
        if note.index < found[1]:
            during += 1
            continue
        progress = note.params.get("progress") if isinstance(note.params, dict) else None
        late.append(f"progress {str(progress)[:40]} for token {found[0]!r} after its {TOOL} result")
    return {"watched": True, "tokens": tokens, "progress during the call": during, "late": late[:10]}


@case("heartbeat.wire.slow-reader", level=Level.MUST, spec=REPLY, needs=("heartbeat",))
async def answers_a_slow_reader(mcp: McpTarget, details: dict) -> None:
    """Over stdio, requests in flight while the client reads nothing (a host busy elsewhere: the
    pipe fills and the server's writes must wait) are each answered once it reads again:
    tools/list calls with a heartbeat of the case's session every 16th, each with a string id
    carrying text one to four bytes wide a character, as many as make the answers several times
    what a pipe holds, sized from the server's own answers and pace. Reads are held while the
    server could answer them all; then answers are waited for as long as they keep coming. A
    server that drops what it cannot write at once loses answers no prompt reader sees lost, and
    one that reads the burst in pieces answers ids it was never sent."""
    if mcp.harness.config.transport != "stdio":
        raise NotApplicable(
            "a stdio rule: over Streamable HTTP each request gets an HTTP response of its own"
        )
    sid = new_session_id()
    beats = [(await mcp.ok_heartbeat(sid)).reply, (await mcp.heartbeat(sid)).reply]
    lists = [await mcp.request("tools/list", {}) for _ in range(2)]
    if not lists[0].ok:
        raise NotTestable(f"tools/list was answered with {lists[0].describe()}")
    slowest = max(r.elapsed for r in beats + lists)
    each = slow_reader.answer_bytes(lists[0])
    count = slow_reader.burst_size(each, BURST_MOST, slowest)
    calls: list[tuple[str, Any]] = []
    for n in range(count):
        if n % HEARTBEAT_EVERY == HEARTBEAT_EVERY - 1:
            arguments = {"sessionId": sid, "idempotencyKey": new_key()}
            calls.append(("tools/call", mcp.wire_params({"name": TOOL, "arguments": arguments})))
        else:
            calls.append(("tools/list", mcp.wire_params({})))
    pace = statistics.median(r.elapsed for r in beats + lists)
    clock = slow_reader.plan(each, pace, slowest, count, mcp.harness.config.timeout)
    # Every id carries wide text, which every answer echoes: a reader's blocks of any size end
    # inside a character somewhere, and a request read in pieces answers under an id never sent.
    strays = mcp.peer.strays
    replies, held = await mcp.peer.unread_burst(
        calls,
        hold=clock.hold,
        stall=clock.stall,
        limit=clock.limit,
        id_text=slow_reader.wide_text(WIDE_ID_CHARS),
    )
    slow_reader.judge(calls, replies, held, clock, details, named=TOOL, strays=mcp.peer.strays - strays)


@case("heartbeat.wire.event-ids-unique", level=Level.MUST, spec=EVENT_IDS, needs=("heartbeat",))
async def event_ids_unique(mcp: McpTarget, details: dict) -> None:
    """Over Streamable HTTP, on a connection that is a protocol session (Mcp-Session-Id: the
    handshake era, on a connection of its own where the run speaks the stateless one): two
    heartbeats, tools/list and a third heartbeat, each answered on a stream of its own; the SSE
    event ids of every stream of the connection since its handshake are all different. A client
    that lost a stream resumes it by the last event id it saw (Last-Event-ID), which must name one
    event of one stream. A server that attaches no event ids (a MAY) is not applicable."""
    if mcp.harness.config.transport != "http":
        raise NotApplicable("a Streamable HTTP rule: over stdio there are no SSE streams")
    found = await mcp.in_each_era(_event_ids, details)
    details["eras"] = found
    repeated = {era: seen["repeated"] for era, seen in found.items() if seen.get("repeated")}
    if repeated:
        shown = "; ".join(
            f"over MCP {era}, event id {event_id!r} came on {len(requests)} events ({', '.join(requests)})"
            for era, ids in repeated.items()
            for event_id, requests in list(ids.items())[:3]
        )
        raise Violation(
            f"SSE event ids repeat within one session: {shown}. A client resuming a stream with Last-Event-ID "
            "names an event that is not one event of one stream",
            expected="every SSE event id of a session's streams different from the others",
            observed=repeated,
        )
    if not any(seen.get("events") for seen in found.values()):
        raise NotApplicable(
            "the server attaches no SSE event ids on a connection that is a protocol session (resumability is a "
            "MAY): " + "; ".join(f"MCP {era}: {seen.get('why') or 'no ids'}" for era, seen in found.items())
        )


async def _event_ids(target: McpTarget) -> dict[str, Any]:
    """The connection's SSE event ids after its case's requests, and the ones that repeat (each
    with the requests whose streams carried it)."""
    channel = target.peer.process
    if not getattr(channel, "protocol_session", False):
        return {"why": "no Mcp-Session-Id, so no session whose streams a client could resume"}
    # A session each (a stated allowance of two heartbeats a session fits).
    await target.ok_heartbeat(new_session_id(), status="active")
    await target.heartbeat(new_session_id(), progressPercent=50)
    await target.request("tools/list", {})
    await target.heartbeat(new_session_id(), progressPercent=90)
    seen: list[tuple[Any, str]] = list(getattr(channel, "event_ids", []))
    carried: dict[str, list[str]] = {}
    for request_id, event_id in seen:
        carried.setdefault(event_id, []).append(f"request {json.dumps(request_id)[:40]}")
    repeated = {e: requests for e, requests in carried.items() if len(requests) > 1}
    return {"events": len(seen), "repeated": dict(list(repeated.items())[:10])}

"""The JSON-RPC layer as clients use it: session/status before `initialize`, sent as a
notification, and with string and number request ids.

Which level each is: a conforming ACP client initializes first (ACP: Clients MUST call
`initialize` before anything else) and sends session/status as a request, so an agent's handling
of status before `initialize` or as a notification concerns frames the protocol never carries:
robustness findings (shown; a failure only under --strict). What a client cannot live with is a
crash or silence, so any answer (an error, or the answer the agent would give later) passes the
first; the second passes when nothing answers the notification and the agent still answers
status. Request ids are another matter: ACP clients send both strings and numbers (JSON-RPC
allows either), so an answer whose id is not the request's, value and type, is a MUST failure.
"""

import json
from typing import Any

import anyio
from conformance.cases.acp import spec

from conformance.core import revisions
from conformance.core.outcomes import AgentExited, MissingInput, Unanswered, Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.target import AcpTarget
from conformance.transport.peer import JsonRpcPeer

# The ids the id case sends: a string that reads as a number, a number, a string that does not.
IDS: tuple[Any, ...] = ("7", 7, "req-7", 0, -1)


@case(
    "transport.jsonrpc.status-before-initialize",
    level=Level.ROBUSTNESS,
    spec=spec.ONE_RESPONSE,
    needs=("status", "frames"),
)
async def status_before_initialize(acp: AcpTarget, details: dict) -> None:
    """session/status sent on a fresh connection before `initialize` gets an answer (an error or
    its status), and the agent then initializes as ever. The fresh connection is a restarted
    agent's, or, for an agent the suite cannot restart (--agent-url), a new connection to it."""
    seen: dict[str, Any] = {}
    unknown = acp.unknown_id()
    second: JsonRpcPeer | None = None  # the second connection's peer, when there is one

    async def ask() -> None:
        fresh = second or acp.peer  # a restarted agent's peer is the target's new one
        frame = {
            "jsonrpc": "2.0",
            "id": "before-initialize",
            "method": "session/status",
            "params": {"sessionId": unknown},
        }
        try:
            raw = await fresh.exchange_raw(
                json.dumps(frame).encode(),
                "before-initialize",
                wait=True,
                timeout=acp.harness.config.timeout,
                method="session/status before initialize",
            )
        except AgentExited as exc:
            seen["exited"] = str(exc)
            raise
        except Unanswered:
            seen["silent"] = True
            fresh.unanswered = None  # the handshake that follows is a request of its own
            return
        seen["answer"] = raw.frame if raw.frame is not None else raw.stray

    restart = acp.harness.config.restartable
    if not restart and acp.harness.current_url() is None:
        raise MissingInput(
            "needs a fresh connection to the agent: start it with --agent CMD, or serve it at a URL"
        )
    details["fresh_connection"] = "a restarted agent's" if restart else "a second connection (B)"
    try:
        if restart:
            await acp.harness.restart_agent(before_handshake=ask)
        else:
            second = await acp.harness.open_connection("B")
            await ask()
            await AcpTarget(acp.harness, peer=second).handshake()
    except Exception as exc:  # the handshake after a crash fails too: what happened is the finding
        seen.setdefault("exited", str(exc))
    details.update({k: v for k, v in seen.items() if k != "answer"})
    if "answer" in seen:
        details["answer"] = json.dumps(seen["answer"])[:300]
    if "exited" in seen or "silent" in seen:
        what = (
            f"the agent exited ({seen['exited'][:200]})"
            if "exited" in seen
            else f"no answer came within --timeout ({acp.harness.config.timeout:g} s)"
        )
        if restart:
            await acp.harness.restart_agent()  # the cases after this one get a working agent
        raise Violation(
            f"session/status sent before initialize: {what}. A client that asks too early (a reconnect that "
            "races its own handshake) needs an answer: an error such as -32600 or the status it would give",
            expected="an answer to every request (an error is fine), and a working agent after it",
            observed=what,
        )


@case(
    "transport.jsonrpc.status-notification",
    level=Level.ROBUSTNESS,
    spec=spec.NO_REPLY_TO_NOTIFICATION,
    needs=("status", "frames"),
)
async def status_as_notification(acp: AcpTarget, details: dict) -> None:
    """session/status sent as a notification (no id) gets no answer, and the session it names is
    as it was."""
    pause = max(acp.settle, 0.2)
    sid = await acp.new_session()
    problems = len(acp.peer.problems)
    await acp.peer.notify("session/status", {"sessionId": sid})
    # A reply, if any, comes as soon as the notification was read; the status request after it
    # waits for the agent too, and its answer usually comes after one to the notification.
    await anyio.sleep(pause)
    after = await acp.status(sid)
    answered = [p for p in acp.peer.problems[problems:] if not p.noise]
    # Its twin, made and asked the same way after it, without the notification, is what the
    # session must look like: a status asked before the notification could itself change the
    # session, another case judges what a new session's status is, and one made after it (not
    # beside it) fits under any memory cap.
    twin = await acp.new_session()
    await anyio.sleep(pause)
    beside = await acp.status(twin)
    details["status_after"] = after.describe()[:200]
    details["twin_status"] = beside.describe()[:200]
    details["answered"] = len(answered)
    if answered:
        raise Violation(
            f"session/status sent as a notification (no id) was answered: frame #{answered[0].index}: "
            f"{answered[0].problem}. JSON-RPC 2.0 4.1: the Server MUST NOT reply to a Notification",
            expected="no response to a notification",
            observed=[p.index for p in answered],
        )

    def word(answer: Any) -> str | None:
        return (
            revisions.canonical(answer.result.get("status"))
            if answer.ok and isinstance(answer.result, dict)
            else None
        )

    if word(beside) is not None and word(after) != word(beside):
        raise Violation(
            f"after session/status came as a notification, status of the session answered {after.describe()} "
            f"where its twin, made and asked the same way without a notification, answered {beside.describe()}",
            expected=f"the session as its twin is: {beside.describe()}",
            observed=after.describe(),
        )


@case("transport.jsonrpc.id-types", level=Level.MUST, spec=spec.ID_ECHOED, needs=("status",))
async def ids_echoed_with_their_type(acp: AcpTarget, details: dict) -> None:
    """session/status with a string id that reads as a number, a number, another string, 0 and -1
    (ids like any other, falsy or negative): each answer carries the request's id, the same value
    of the same JSON type, once."""
    sid = await acp.new_session()
    got: dict[str, Any] = {}
    for request_id in IDS:
        frame = {"jsonrpc": "2.0", "id": request_id, "method": "session/status", "params": {"sessionId": sid}}
        raw = await acp.peer.exchange_raw(
            json.dumps(frame).encode(),
            request_id,
            wait=True,
            timeout=acp.harness.config.timeout,
            method="session/status",
        )
        answer = raw.frame if raw.frame is not None else raw.stray
        got[json.dumps(request_id)] = json.dumps(answer.get("id") if isinstance(answer, dict) else None)
        if raw.frame is None:
            raise Violation(
                f"session/status with id {json.dumps(request_id)} ({type(request_id).__name__}) was answered with id "
                f"{got[json.dumps(request_id)]}: JSON-RPC 2.0 says the response's id MUST be the same as the request's",
                expected=f"id {json.dumps(request_id)}",
                observed=got[json.dumps(request_id)],
            )
    details["ids"] = got

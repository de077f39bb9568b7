"""Two connections to one agent: `active` "for any connection", and status attaches nobody.

These need an agent that serves more than one connection (WebSocket: ``--transport websocket``
with a server command, or ``--agent-url``). Over stdio they are not testable, and say so.
"""

import anyio
from conformance.cases.acp import spec

from conformance.core.outcomes import MissingInput, Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.expect import SESSION_NOT_FOUND, expect_status, show
from conformance.targets.acp.target import AcpTarget

STATUS_CALLS = 3
# Seconds connection A sends nothing before B asks: an agent that takes a quiet connection for a
# dropped one (its client reconnecting elsewhere) may hand the session to whoever asks next.
A_QUIET = 1.0


@case("status.connections.active-for-any-connection", level=Level.MUST, spec=spec.ACTIVE)
async def active_for_any_connection(acp: AcpTarget, details: dict) -> None:
    """A session created on connection A is `active` in connection B's status."""
    sid = await acp.new_session()
    other = await acp.connect_again()
    expect_status(
        await other.status(sid), {"active"}, "connection B's status of a session live on connection A"
    )


@case("status.connections.no-attach", level=Level.MUST, spec=spec.NOT_ATTACHED, rules=("owner-unchanged",))
async def status_does_not_attach(acp: AcpTarget, details: dict) -> None:
    """After B's status calls, sent once A has been quiet for a second (as a connection whose
    client dropped is), A's prompt sends session/update to A and nothing to B. A control
    connection C, opened alike and never asking anything, calibrates the probe: an agent that
    sends a session's updates to every connection shows nothing about attaching through them.
    A's prompt refused where a session B never asked about serves it is B's status calls changing
    the session (owner-unchanged: the side-effect sentence, not what attaching means)."""
    sid, twin = await acp.new_session(), await acp.new_session()
    a_quiet_since = anyio.current_time()
    other = await acp.connect_again()
    control = await acp.connect_again("C")
    await anyio.sleep(max(0.0, a_quiet_since + A_QUIET - anyio.current_time()))
    details["a_quiet_before_status"] = round(anyio.current_time() - a_quiet_since, 2)
    for _ in range(STATUS_CALLS):
        await other.status(sid)
    seen = [len(peer.peer.notifications) for peer in (acp, other, control)]
    reply = await acp.prompt(sid, "who hears this?")
    if not reply.ok:
        # Calibration: a session A created alike that B never asked about. Its prompt failing too
        # says prompts fail here anyway; served, it says B's status calls broke A's session.
        twin_reply = await acp.prompt(twin, "a session B never asked about")
        if not twin_reply.ok:
            raise MissingInput(f"session/prompt on connection A failed: {reply.describe()}")
        raise Violation(
            f"after connection B asked session/status about A's session, A's prompt on it failed ({reply.describe()}), "
            "while a session A created alike, which B never asked about, served A's prompt: B's status calls changed "
            "the session",
            expected="a PromptResponse on A, as the session B never asked about got",
            observed=reply.describe(),
            rule="owner-unchanged",
        )
    await anyio.sleep(max(acp.settle, 0.2))  # updates to B, if any, arrive around A's answer
    # On a slow machine they may come later: B and C quiet for a while, then a round trip on each
    # (the agent writes to a connection in order, so what it sent before answering has arrived).
    for peer in (other, control):
        await peer.quiet({sid})
        await peer.status(acp.unknown_id())
    to_a, to_b, to_c = (
        [n for n in peer.peer.notifications[since:] if n.method == "session/update"]
        for peer, since in zip((acp, other, control), seen, strict=True)
    )
    details.update(updates_to_a=len(to_a), updates_to_b=len(to_b), updates_to_control=len(to_c))
    if to_c:
        raise MissingInput(
            "the agent sent A's session/update notifications to a connection that never asked anything too, "
            "so what it sends B cannot show whether status attached B"
        )
    if to_b:
        raise Violation(
            f"connection B got {len(to_b)} session/update notification(s) for A's prompt after only asking "
            "session/status (a connection that asked nothing got none): status attached B to the session",
            expected="no session/update on B",
            observed=show(to_b[0].params),
        )
    if not to_a:
        # A turn need not stream anything (an empty reply ending end_turn is a turn).
        raise MissingInput("A's prompt produced no session/update on A, so attaching cannot be observed")


@case("status.connections.prompt-needs-resume", level=Level.SHOULD, spec=spec.CLIENT_MUST_RESUME)
async def prompt_from_unattached_connection(acp: AcpTarget, details: dict) -> None:
    """B's session/prompt without session/resume (after a status) is rejected, not served. The
    sentence binds Clients, so an agent that serves any connection's prompt breaks nothing: a
    control connection C prompts a session of its own it never asked about, and only an agent
    that refuses C but serves B (status let B in) is warned."""
    sid, control_sid = await acp.new_session(), await acp.new_session()
    other = await acp.connect_again()
    control = await acp.connect_again("C")
    control_reply = await control.prompt(control_sid, "prompt from a connection that never asked anything")
    details["control_reply"] = control_reply.describe()
    await other.status(sid)
    reply = await other.prompt(sid, "prompt from a connection that never resumed")
    details["reply"] = reply.describe()
    if not reply.ok:
        return
    if control_reply.ok:
        raise MissingInput(
            "the agent serves session/prompt from any connection, one that never asked anything too (the "
            "Client MUST resume first, the agent need not refuse), so serving B shows nothing about its status call"
        )
    raise Violation(
        "the agent served session/prompt from a connection that never created or resumed the session "
        "(it only asked session/status) and refused one that asked nothing: status acted as an attach; "
        "Clients MUST resume first",
        expected="an error (e.g. -32002) until B resumes the session, as connection C got",
        observed=reply.describe(),
    )


@case(
    "status.connections.close-seen-by-other",
    level=Level.MUST,
    spec=spec.INACTIVE,
    needs=("status", "close"),
)
async def close_on_a_seen_by_b(acp: AcpTarget, details: dict) -> None:
    """After A closes a session, B's status of it is not `active` (the state is the agent's, not A's)."""
    sid = await acp.new_session()
    other = await acp.connect_again()
    expect_status(await other.status(sid), {"active"}, "connection B's status before A closes")
    await acp.close(sid)
    reply = await other.status(sid)
    details["after_close"] = reply.describe()
    if not reply.ok and reply.code == SESSION_NOT_FOUND:
        return  # the agent let it go entirely: not active either
    expect_status(reply, {"inactive"}, "connection B's status after A closed the session", unknown_ok=True)

"""HTTP `GET /sessions/{session_id}/status`: each of the four states, driven from outside.

Sessions are driven through the service's own public API: ``POST /chat/`` against the fake
OpenAI-compatible model the suite runs on 127.0.0.1, whose reply is scripted by a marker in the
message (``[slow:N]`` streams for N seconds and holds the run lease, ``[permission]`` calls a tool
that needs the user's permission, ``[external]`` one for an external executor). A state the
public API cannot reach is reported as not testable, with why.
"""

from __future__ import annotations

from conformance.http_target import HttpStatusTarget, StatusProbe
from conformance.outcomes import MissingInput, NotTestable, Violation
from conformance.registry import Level, SpecRef, case

from .http_status import HTTP_CAPABILITY, NOT_FOUND, SOURCE, same_shape

RUNNING = SpecRef(
    SOURCE,
    "SessionStatus",
    "``RUNNING``: a worker somewhere in the cluster currently holds the session's run lease on the message bus.",
)
PRECEDENCE = SpecRef(
    SOURCE,
    "SessionStatus",
    "Precedence: ``RUNNING`` is decided first from the distributed session-run lock; only when the session is not "
    "held by any worker do the ``AWAITING_*`` / ``IDLE`` values (derived from the stored context tail) apply.",
)
IDLE = SpecRef(
    SOURCE,
    "SessionStatus",
    "``IDLE``: no worker is running the session, and its persisted context is not parked on any pending tool call.",
)
AWAITING_PERMISSION = SpecRef(
    SOURCE,
    "SessionStatus",
    "``AWAITING_PERMISSION``: no worker is running the session, and the persisted context tail has at least one "
    "tool call waiting for user permission confirmation (HITL).",
)
AWAITING_EXTERNAL = SpecRef(
    SOURCE,
    "SessionStatus",
    "``AWAITING_EXTERNAL_RESULT``: no worker is running the session, and the persisted context tail has at least "
    "one tool call dispatched to an external executor and awaiting its result (with no peer awaiting permission).",
)


async def driven_session(http: HttpStatusTarget, what: str) -> tuple[str, str]:
    http.require_driving(what)
    return await http.new_session()


def expect(probe: StatusProbe, wanted: str, when: str) -> None:
    if probe.status != wanted:
        raise Violation(
            f"{when}, the status was {probe.describe()}",
            expected=f"status {wanted!r}",
            observed=probe.describe(),
        )


@case("http.state.idle-fresh", level=Level.MUST, spec=IDLE, needs=HTTP_CAPABILITY)
async def fresh_session_is_idle(http: HttpStatusTarget, details: dict) -> None:
    """A session that never ran is idle."""
    agent_id, sid = await driven_session(http, "a fresh session")
    expect(await http.status(sid, agent_id), "idle", "for a session that never ran")


@case("http.state.running-during-run", level=Level.MUST, spec=PRECEDENCE, needs=HTTP_CAPABILITY)
async def running_while_the_lease_is_held(http: HttpStatusTarget, details: dict) -> None:
    """While a run holds the lease the session reads running (whatever its persisted tail says)."""
    agent_id, sid = await driven_session(http, "a running session")
    await http.chat(agent_id, sid, "[slow:3] answer slowly")
    probe = await http.wait_for(agent_id, sid, "running", timeout=2.5)
    details["seen"] = probe.describe()
    expect(probe, "running", "while a run streamed its answer for 3 s")
    await http.settle(agent_id, sid)


@case("http.state.idle-after-run", level=Level.MUST, spec=IDLE, needs=HTTP_CAPABILITY)
async def idle_once_the_run_ends(http: HttpStatusTarget, details: dict) -> None:
    """Once the run has ended (and released its lease), the session is idle again."""
    agent_id, sid = await driven_session(http, "a session after a run")
    await http.chat(agent_id, sid, "[slow:1] answer")
    await http.wait_for(agent_id, sid, "running", timeout=2)
    probe = await http.wait_for(agent_id, sid, "idle", timeout=http.settle_time)
    expect(probe, "idle", f"{http.settle_time:g} s after a 1 s run")


@case("http.state.awaiting-permission", level=Level.MUST, spec=AWAITING_PERMISSION, needs=HTTP_CAPABILITY)
async def parked_on_permission(http: HttpStatusTarget, details: dict) -> None:
    """A turn that ends waiting on a permission request reads awaiting_permission."""
    agent_id, sid = await driven_session(http, "a session waiting for permission")
    await http.chat(agent_id, sid, "[permission] write the probe file")
    probe = await http.wait_for(agent_id, sid, "awaiting_permission", timeout=http.settle_time)
    if probe.status == "awaiting_permission":
        await http.driver.confirm(http.user_id, agent_id, sid, allow=False)
        await http.settle(agent_id, sid)
    expect(probe, "awaiting_permission", "after the model asked for a tool that needs the user's permission")


@case("http.state.awaiting-external", level=Level.MUST, spec=AWAITING_EXTERNAL, needs=HTTP_CAPABILITY)
async def parked_on_external_executor(http: HttpStatusTarget, details: dict) -> None:
    """A turn that ends waiting on an external executor reads awaiting_external_result."""
    agent_id, sid = await driven_session(http, "a session waiting for an external executor")
    mark = len(http.model.requests)
    await http.chat(agent_id, sid, "[external] ask the user")
    await http.wait_for_model(mark)
    probe = await http.wait_for(agent_id, sid, {"awaiting_external_result", "idle"}, timeout=http.settle_time)
    if probe.status == "awaiting_external_result":
        await http.driver.submit_external_result(http.user_id, agent_id, sid)
        await http.settle(agent_id, sid)
        return
    offered = {
        str((tool.get("function") or {}).get("name"))
        for request in http.model.requests[mark:]
        for tool in request["body"].get("tools") or []
        if isinstance(tool, dict)
    }
    details["tools_offered_to_the_model"] = sorted(offered)
    if "AskUser" not in offered:
        raise MissingInput(
            "not reachable through the public API: the agent's toolkit offers the model no tool dispatched to an "
            f"external executor (tools offered: {sorted(offered) or 'none'}); on AgentScope, AskUser is external but "
            "only added with create_app(extra_agent_tools=…)"
        )
    expect(probe, "awaiting_external_result", "after the model called a tool run by an external executor")


async def expect_hidden(http: HttpStatusTarget, agent_id: str, sid: str, state: str) -> list[str]:
    """Another user and a wrong agent_id get the unknown-session 404 while the session is ``state``."""
    missing = http.unknown_id()
    unknown = await http.status(missing, agent_id, user_id=http.other_user_id)
    theirs = await http.status(sid, agent_id, user_id=http.other_user_id)
    wrong_agent = await http.status(sid, f"conformance-agent-{missing[-8:]}")
    problems = []
    if theirs.code != 404 or same_shape(theirs, sid) != same_shape(unknown, missing):
        problems.append(f"another user got {theirs.describe()}")
    if wrong_agent.code != 404:
        problems.append(f"a wrong agent_id got {wrong_agent.describe()}")
    return problems


@case("http.ownership.while-running", level=Level.MUST, spec=NOT_FOUND, needs=HTTP_CAPABILITY)
async def ownership_holds_while_running(http: HttpStatusTarget, details: dict) -> None:
    """While the session runs, another user and a wrong agent_id still get the unknown-session 404."""
    agent_id, sid = await driven_session(http, "a running session")
    await http.chat(agent_id, sid, "[slow:3] answer slowly")
    running = await http.wait_for(agent_id, sid, "running", timeout=2.5)
    if running.status != "running":
        raise NotTestable(
            f"the session never read running during a 3 s run ({running.describe()}): see http.state.running-during-run"
        )
    problems = await expect_hidden(http, agent_id, sid, "running")
    await http.settle(agent_id, sid)
    if problems:
        raise Violation(
            "while the session was running: " + "; ".join(problems),
            expected="HTTP 404, the same body as for a session that does not exist",
            observed=problems,
        )


@case("http.ownership.while-parked", level=Level.MUST, spec=NOT_FOUND, needs=HTTP_CAPABILITY)
async def ownership_holds_while_parked(http: HttpStatusTarget, details: dict) -> None:
    """While the session waits for permission, another user and a wrong agent_id still get 404."""
    agent_id, sid = await driven_session(http, "a session waiting for permission")
    await http.chat(agent_id, sid, "[permission] write the probe file")
    parked = await http.wait_for(agent_id, sid, "awaiting_permission", timeout=http.settle_time)
    if parked.status != "awaiting_permission":
        raise NotTestable(
            f"the session never read awaiting_permission ({parked.describe()}): see http.state.awaiting-permission"
        )
    problems = await expect_hidden(http, agent_id, sid, "awaiting_permission")
    await http.driver.confirm(http.user_id, agent_id, sid, allow=False)
    await http.settle(agent_id, sid)
    if problems:
        raise Violation(
            "while the session waited for permission: " + "; ".join(problems),
            expected="HTTP 404, the same body as for a session that does not exist",
            observed=problems,
        )

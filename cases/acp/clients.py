"""What the client declares: status answers alike whatever a client says of itself in `initialize`.

Editors declare `fs.readTextFile` and `fs.writeTextFile`, and an agent then reads and writes files
through them, often right after `session/new` (its instructions file) and in turns; other clients
send only what the schema requires (no `clientInfo`, no `clientCapabilities` in v1). The run's main
connection declares no file access and names itself (client_profile); this case speaks to the
agent as the other clients do, one connection for each: second connections where the transport
carries several, on stdio second processes of the agent's command (as a second editor starts its
own), initialized at once, else (or when they do not come up beside the first) with the agent
restarted for each client in turn and restarted back after, for the cases that follow.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from conformance.cases.acp import spec
from conformance.cases.acp.lifecycle import not_active

from conformance.core.outcomes import (
    AgentExited,
    CaseSignal,
    MissingInput,
    NoTurn,
    Problems,
    Unanswered,
    Violation,
)
from conformance.core.registry import Level, case
from conformance.targets.acp.client_profile import BARE, EDITOR, MINIMAL
from conformance.targets.acp.expect import expect_status
from conformance.targets.acp.target import AcpTarget
from conformance.transport.peer import Reply

# The editor's file requests, held while status is asked right after session/new, for at most
# FS_HOLD seconds.
FS_METHODS = ("fs/read_text_file", "fs/write_text_file")
FS_HOLD = 2.0

CLIENTS = {
    EDITOR: "a client that declared file access",
    MINIMAL: "a client whose initialize carried only what the schema requires",
}
RULES = {EDITOR: "file-access", MINIMAL: "minimal-initialize"}
LABELS = {EDITOR: "E", MINIMAL: "F"}


def _profiles(acp: AcpTarget) -> list[str]:
    """The clients this run speaks as: v2 declares no file access, so only the minimal one there."""
    return [EDITOR, MINIMAL] if acp.protocol == 1 else [MINIMAL]


@asynccontextmanager
async def _restarted_as(acp: AcpTarget, profile: str) -> AsyncIterator[AcpTarget]:
    """The agent restarted for ``profile``'s client, and restarted back after."""
    acp.client_profile = profile
    try:
        await acp.restart()
        yield acp
    finally:
        acp.client_profile = BARE
        await acp.restart()


async def _created_and_asked(client: AcpTarget, details: dict) -> tuple[str, Reply]:
    """session/new, then status at once, while the file requests the agent sends meanwhile wait for
    the editor's answer (an editor reading a file takes its time): the status call comes while the
    agent's own read is still out, however fast the machine. Held at most FS_HOLD seconds, for an
    agent that reads before it answers session/new."""
    peer = client.peer
    if client.editor_files is None:
        sid = await client.new_session()
        return sid, await client.status(sid)

    async def release_later() -> None:
        await anyio.sleep(FS_HOLD)
        await peer.release()

    asked: list[tuple[str, Reply]] = []
    async with peer.holding(FS_METHODS), anyio.create_task_group() as tg:
        tg.start_soon(release_later)
        sid = await client.new_session()
        asked.append((sid, await client.status(sid)))
        details["file_requests_held_while_asked"] = len(peer.held)
        tg.cancel_scope.cancel()
    return asked[0]


async def _lifecycle(client: AcpTarget, profile: str, details: dict) -> None:
    """A new session is `active` at once (for the editor, again once the agent's own requests
    after session/new settled) and after a turn; after session/close it is not `active`: all on
    the other client's connection."""
    where = f"on a connection of {CLIENTS[profile]}"
    sid, first = await _created_and_asked(client, details)
    try:
        expect_status(first, {"active"}, f"status right after session/new, {where}")
        if profile == EDITOR:  # the agent's own file requests after session/new, answered
            await client.quiet({sid})
            expect_status(
                await client.status(sid),
                {"active"},
                f"status once the new session's updates settled, {where}",
            )
        await client.prompt(sid, "hello")
        expect_status(await client.status(sid), {"active"}, f"status after a turn, {where}")
        if client.advertises("close"):
            await client.close(sid)
            details["status_after_close"] = await not_active(
                client, sid, f"status after session/close, {where}"
            )
    finally:
        if client.editor_files is not None:
            details["file_requests"] = client.editor_files.describe()


@case(
    "status.clients.declarations",
    level=Level.MUST,
    spec=spec.ACTIVE,
    rules=tuple(RULES.values()),
    slow=True,
)
async def status_whatever_the_client_declares(acp: AcpTarget, details: dict) -> None:
    """Whatever a client declares in `initialize`, a new session is `active` at once and after a
    turn, and not `active` after session/close. Rule file-access (v1): for a client that declared
    `fs` read and write access (and serves the agent's file requests from what the agent wrote),
    also once the agent's own requests after session/new have settled. Rule minimal-initialize: for
    a client whose `initialize` carried only what the schema requires (v1: no `clientInfo`, no
    `clientCapabilities`; v2: no `capabilities`)."""
    profiles = _profiles(acp)
    problems = Problems.listed(
        "status `active` for a new session and after a turn, not `active` after session/close, "
        "whatever the client declared",
        limit=2,
        rules=tuple(RULES[p] for p in profiles),
    )
    seen = {RULES[p]: {} for p in profiles}
    details.update(seen)
    if EDITOR not in profiles:
        details["unjudged"] = {RULES[EDITOR]: "ACP v2's initialize declares no file access"}
    clients: dict[str, AcpTarget] = {}
    over_connections = acp.harness.current_url() is not None
    if over_connections:
        for profile in profiles:
            seen[RULES[profile]]["connection"] = (
                f"a second connection ({LABELS[profile]}) of {CLIENTS[profile]}"
            )
    elif not acp.harness.config.restartable:
        raise MissingInput(
            "needs connections of other clients: a second connection (--transport websocket) or an agent the "
            "suite can restart (--agent CMD)"
        )
    else:
        started, why = await acp.second_processes_or_reason({LABELS[p]: p for p in profiles})
        clients = {p: started[LABELS[p]] for p in profiles if LABELS[p] in started}
        for profile in profiles:
            seen[RULES[profile]]["connection"] = (
                f"a second agent process ({LABELS[profile]}) of {CLIENTS[profile]}, beside the first"
                if clients
                else f"the agent restarted for {CLIENTS[profile]}, then restarted back"
            )
        if why:
            details["second_process"] = f"did not come up beside the first ({why}); restarted instead"

    async def judged(client: AcpTarget, profile: str) -> None:
        """One client's lifecycle; its finding kept before anything after it (a restart back) runs."""
        try:
            await _lifecycle(client, profile, seen[RULES[profile]])
        except Violation as broken:
            seen[RULES[profile]].update(expected=broken.expected, observed=broken.observed)
            problems.add(RULES[profile], broken.message)

    # Each client is judged whatever ended the other's run (a turn past --turn-timeout, a
    # connection refused); what ended it then ends the case, as it would have ended that client's.
    ended: list[BaseException] = []
    with problems.kept(details):
        for profile in profiles:
            try:
                if over_connections:
                    await judged(await acp.connect_again(LABELS[profile], profile=profile), profile)
                elif profile in clients:
                    await judged(clients[profile], profile)
                else:
                    async with _restarted_as(acp, profile) as client:
                        await judged(client, profile)
            except (CaseSignal, Unanswered, NoTurn, AgentExited) as stop:
                seen[RULES[profile]]["ended"] = f"{type(stop).__name__}: {str(stop)[:300]}"
                ended.append(stop)
        if ended and not problems.shown:
            raise ended[0]
    problems.judge()

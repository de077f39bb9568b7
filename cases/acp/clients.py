"""What the client declares: status answers alike whatever a client says of itself in `initialize`.

Editors declare `fs.readTextFile` and `fs.writeTextFile`, and an agent then reads and writes files
through them, often right after `session/new` (its instructions file) and in turns; other clients
send only what the schema requires (no `clientInfo`, no `clientCapabilities` in v1). The run's main
connection declares no file access and names itself (client_profile); these cases speak to the
agent as the other clients do: on a second connection where the transport carries several, on
stdio to a second process of the agent's command (as a second editor starts its own), else (or
when that second process does not come up beside the first) with the agent restarted for that
client and restarted back after, for the cases that follow.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from conformance.cases.acp import spec
from conformance.cases.acp.lifecycle import not_active

from conformance.core.outcomes import MissingInput
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


@asynccontextmanager
async def _as_client(acp: AcpTarget, profile: str, details: dict) -> AsyncIterator[AcpTarget]:
    who = CLIENTS[profile]
    if acp.harness.current_url() is not None:
        details["connection"] = f"a second connection (E) of {who}"
        yield await acp.connect_again("E", profile=profile)
        return
    if not acp.harness.config.restartable:
        raise MissingInput(
            f"needs a connection of {who}: a second connection (--transport websocket) or an agent the suite can "
            "restart (--agent CMD)"
        )
    client, why = await acp.second_process_or_reason("E", profile=profile)
    if client is not None:
        details["connection"] = f"a second agent process (E) of {who}, beside the first"
        yield client
        return
    # The agent restarted for this client judges the same.
    details["second_process"] = f"did not come up beside the first ({why}); restarted instead"
    details["connection"] = f"the agent restarted for {who}, then restarted back"
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


async def _lifecycle(acp: AcpTarget, profile: str, details: dict) -> None:
    """A new session is `active` at once (for the editor, again once the agent's own requests
    after session/new settled) and after a turn; after session/close it is not `active`: all on
    the other client's connection."""
    where = f"on a connection of {CLIENTS[profile]}"
    async with _as_client(acp, profile, details) as client:
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


@case("status.clients.file-access", level=Level.MUST, spec=spec.ACTIVE, needs=("status", "v1"), slow=True)
async def status_for_a_client_with_file_access(acp: AcpTarget, details: dict) -> None:
    """For a client that declared `fs` read and write access (and serves the agent's file requests
    from what the agent wrote), a new session is `active` at once, once the agent's own requests
    after session/new have settled, and after a turn; after session/close it is not `active`."""
    await _lifecycle(acp, EDITOR, details)


@case("status.clients.minimal-initialize", level=Level.MUST, spec=spec.ACTIVE, slow=True)
async def status_for_a_client_that_says_little(acp: AcpTarget, details: dict) -> None:
    """For a client whose `initialize` carried only what the schema requires (v1: no `clientInfo`,
    no `clientCapabilities`; v2: no `capabilities`), the same: `active` at once and after a turn,
    not `active` after session/close."""
    await _lifecycle(acp, MINIMAL, details)

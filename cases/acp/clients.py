"""What the client declares: status answers alike for a client that offers file access.

Editors declare `fs.readTextFile` and `fs.writeTextFile` in `initialize`, and an agent then reads
and writes files through them, often right after `session/new` (its instructions file) and in
turns. The run's main connection declares nothing (client_profile); this case speaks to the agent
as an editor does: on a second connection where the transport carries several, else with the
agent restarted under that client (and restarted back after, for the cases that follow).
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from conformance.cases.acp import spec
from conformance.cases.acp.lifecycle import not_active

from conformance.core.outcomes import MissingInput
from conformance.core.registry import Level, case
from conformance.targets.acp.client_profile import BARE, EDITOR
from conformance.targets.acp.expect import expect_status
from conformance.targets.acp.target import AcpTarget

WHERE = "on a connection whose client declared file access"


@asynccontextmanager
async def _editor(acp: AcpTarget, details: dict) -> AsyncIterator[AcpTarget]:
    if acp.harness.current_url() is not None:
        details["connection"] = "a second connection (E) whose client declared file access"
        yield await acp.connect_again("E", profile=EDITOR)
        return
    if not acp.harness.config.restartable:
        raise MissingInput(
            "needs a connection whose client declares file access: a second connection (--transport websocket) "
            "or an agent the suite can restart (--agent CMD)"
        )
    details["connection"] = "the agent restarted for a client that declared file access, then restarted back"
    acp.client_profile = EDITOR
    try:
        await acp.restart()
        yield acp
    finally:
        acp.client_profile = BARE
        await acp.restart()


@case("status.clients.file-access", level=Level.MUST, spec=spec.ACTIVE, needs=("status", "v1"), slow=True)
async def status_for_a_client_with_file_access(acp: AcpTarget, details: dict) -> None:
    """For a client that declared `fs` read and write access (and serves the agent's file requests
    from what the agent wrote), a new session is `active` at once, once the agent's own requests
    after session/new have settled, and after a turn; after session/close it is not `active`."""
    async with _editor(acp, details) as editor:
        sid = await editor.new_session()
        try:
            expect_status(await editor.status(sid), {"active"}, f"status right after session/new, {WHERE}")
            await editor.quiet({sid})
            expect_status(
                await editor.status(sid),
                {"active"},
                f"status once the new session's updates settled, {WHERE}",
            )
            await editor.prompt(sid, "hello")
            expect_status(await editor.status(sid), {"active"}, f"status after a turn, {WHERE}")
            if editor.advertises("close"):
                await editor.close(sid)
                details["status_after_close"] = await not_active(
                    editor, sid, f"status after session/close, {WHERE}"
                )
        finally:
            if editor.editor_files is not None:
                details["file_requests"] = editor.editor_files.describe()

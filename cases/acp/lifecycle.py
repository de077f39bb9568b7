"""`inactive` for sessions the agent knows but does not hold: after close, after a restart."""

from conformance.cases.acp import spec

from conformance.core.outcomes import Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.expect import SESSION_NOT_FOUND, expect_status
from conformance.targets.acp.target import AcpTarget


async def not_active(acp: AcpTarget, sid: str, context: str) -> str:
    """Status must not be `active`; `inactive` (or -32002 if the agent really forgot) is right."""
    reply = await acp.status(sid)
    if not reply.ok and reply.code == SESSION_NOT_FOUND:
        # Only right if the agent really cannot bring the session back.
        if acp.advertises("persist"):
            back = await acp.reopen(sid)
            if back.ok:
                raise Violation(
                    f"{context}: status answered -32002 (unknown), yet the agent then resumed the session",
                    expected="inactive",
                    observed="error -32002, then a successful resume/load",
                )
        return "unknown"
    return expect_status(reply, {"inactive"}, context, unknown_ok=True)


@case("status.inactive.after-close", level=Level.MUST, spec=spec.INACTIVE, needs=("status", "close"))
async def inactive_after_close(acp: AcpTarget, details: dict) -> None:
    """After session/close, status is `inactive` (never `active`)."""
    sid = await acp.new_session()
    await acp.prompt(sid, "hello")
    await acp.close(sid)
    details["status_after_close"] = await not_active(acp, sid, "status after session/close")


@case("status.inactive.after-restart", level=Level.MUST, spec=spec.INACTIVE, slow=True)
async def inactive_after_restart(acp: AcpTarget, details: dict) -> None:
    """After the agent restarts, a session it persisted is `inactive`; if not persisted, -32002."""
    sid = await acp.new_session()
    await acp.prompt(sid, "hello")
    await acp.restart()
    details["status_after_restart"] = await not_active(acp, sid, "status after an agent restart")

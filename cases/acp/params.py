"""Invalid params: a missing, non-string or null sessionId gets -32602, and the agent goes on."""

from typing import Any

from conformance.cases.acp import spec

from conformance.core.outcomes import Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.expect import INVALID_PARAMS, expect_error, status_value
from conformance.targets.acp.target import AcpTarget


async def _rejects(acp: AcpTarget, params: Any, what: str) -> None:
    sid = await acp.new_session()
    try:
        reply = await acp.call("session/status", params)
    except Exception as exc:  # a crash or hang on bad params is the finding
        raise Violation(
            f"session/status with {what} got no answer: {str(exc).splitlines()[0]}",
            expected="error -32602",
            observed=str(exc)[:500],
        ) from None
    expect_error(reply, INVALID_PARAMS, f"session/status with {what}")
    status_value(await acp.status(sid), f"status of a live session after a request with {what}")


@case("status.params.missing-session-id", level=Level.MUST, spec=spec.REQUEST_SCHEMA)
async def missing_session_id(acp: AcpTarget, details: dict) -> None:
    """session/status without sessionId gets -32602 (invalid params)."""
    await _rejects(acp, {}, "no sessionId")


@case("status.params.non-string-session-id", level=Level.MUST, spec=spec.REQUEST_SCHEMA)
async def non_string_session_id(acp: AcpTarget, details: dict) -> None:
    """session/status with a numeric sessionId gets -32602 (invalid params)."""
    await _rejects(acp, {"sessionId": 42}, "sessionId 42 (a number)")


@case("status.params.null-session-id", level=Level.MUST, spec=spec.REQUEST_SCHEMA)
async def null_session_id(acp: AcpTarget, details: dict) -> None:
    """session/status with sessionId null gets -32602 (invalid params)."""
    await _rejects(acp, {"sessionId": None}, "sessionId null")


@case("status.params.no-params", level=Level.MUST, spec=spec.REQUEST_SCHEMA)
async def no_params(acp: AcpTarget, details: dict) -> None:
    """session/status with no params member at all gets -32602 (sessionId is required)."""
    await _rejects(acp, None, "no params member")

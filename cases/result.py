"""The result of session/status: its shape, and `active` for a live session."""

from conformance.acp import AcpTarget
from conformance.expect import expect_status, show
from conformance.outcomes import Violation
from conformance.registry import Level, case
from conformance.schemas import schema_errors

from . import spec


@case("status.result.shape", level=Level.MUST, spec=spec.RESPONSE_SCHEMA)
async def result_is_an_object_with_string_status(acp: AcpTarget, details: dict) -> None:
    """The result is an object with a required string `status`, valid against the schema."""
    sid = await acp.new_session()
    reply = await acp.status(sid)
    if not reply.ok:
        raise Violation(
            "session/status of a live session answered an error",
            expected="a SessionStatusResponse result",
            observed=reply.describe(),
        )
    errors = schema_errors("SessionStatusResponse", reply.result)
    if errors:
        raise Violation(
            "the result does not match SessionStatusResponse: " + "; ".join(errors),
            expected='{"status": "<string>", "_meta"?: {...}}',
            observed=show(reply.result),
        )


@case("status.active.after-new", level=Level.MUST, spec=spec.ACTIVE)
async def active_after_new(acp: AcpTarget, details: dict) -> None:
    """A session just created with session/new is `active`."""
    sid = await acp.new_session()
    expect_status(await acp.status(sid), {"active"}, "status right after session/new")

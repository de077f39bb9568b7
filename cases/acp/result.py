"""The result of session/status: its shape, and `active` for a live session."""

from conformance.cases.acp import spec

from conformance.core.outcomes import Violation
from conformance.core.registry import Level, case
from conformance.core.validation import schema_errors
from conformance.targets.acp.expect import expect_status, show
from conformance.targets.acp.target import AcpTarget


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
    """A session just created with session/new is `active`: one created with the defaults, and one
    created with the optional parameters the schema names (an MCP server the suite provides, a
    `_meta`, `additionalDirectories` where advertised), each asked the moment session/new answered.

    Calibrated: an MCP server the agent starts is started inside session/new, however long that
    takes; an agent that refuses the parameters gets a second session with the defaults (said in
    the details)."""
    sid = await acp.new_session()
    expect_status(await acp.status(sid), {"active"}, "status right after session/new")
    varied = await acp.new_session(varied=True)
    details["created_with"] = acp.creation_details(varied)
    expect_status(
        await acp.status(varied),
        {"active"},
        "status right after session/new for a session created with an MCP server and the other optional parameters",
    )


@case("status.v1.no-state-field", level=Level.SHOULD, spec=spec.V1_NO_STATE, needs=("status", "v1"))
async def v1_response_has_no_state(acp: AcpTarget, details: dict) -> None:
    """A v1 response carries no foreground `state` (that model is v2-only)."""
    sid = await acp.new_session()
    reply = await acp.status(sid)
    if reply.ok and isinstance(reply.result, dict) and "state" in reply.result:
        raise Violation(
            "a v1 session/status result carries a `state` field; v1 has no foreground state model",
            expected='{"status": ...} without "state"',
            observed=show(reply.result),
        )

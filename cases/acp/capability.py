"""Capability advertisement: agentCapabilities.sessionCapabilities.status."""

from conformance.cases.acp import spec

from conformance.core.outcomes import Unimplemented, Violation
from conformance.core.registry import Level, case
from conformance.core.validation import schema_errors
from conformance.targets.acp.expect import METHOD_NOT_FOUND, expect_error, show
from conformance.targets.acp.target import MISSING, AcpTarget


@case("capability.status.object", level=Level.MUST, spec=spec.CAPABILITY, needs=(), shows_handshake=True)
async def status_capability_is_an_object(acp: AcpTarget, details: dict) -> None:
    """sessionCapabilities.status is advertised as an object ({} with optional _meta)."""
    value = acp.status_capability
    if value is MISSING or value is None:
        raise Unimplemented(f"{acp.capability_name('status')} is not advertised")
    details["advertised"] = value
    errors = schema_errors("SessionStatusCapabilities", value)
    if errors:
        raise Violation(
            f"{acp.capability_name('status')} is {show(value)}, not an object: clients drop a malformed "
            "capability, so session/status is invisible to them",
            expected="{} (optionally with _meta)",
            observed=show(value),
        )


@case(
    "capability.status.unadvertised-method-not-found",
    level=Level.SHOULD,
    spec=spec.METHOD_NOT_FOUND,
    needs=("no-status",),
)
async def unadvertised_status_is_method_not_found(acp: AcpTarget, details: dict) -> None:
    """Without the capability, session/status answers -32601 (method not found). Asked about an id
    the suite made up: no session is needed (an agent that cannot create one, needs authentication,
    or takes its time creating one is still judged on its answer alone), and an agent that serves
    the method answers it anyway (-32002), which is the finding."""
    reply = await acp.status(acp.unknown_id())
    expect_error(reply, METHOD_NOT_FOUND, "session/status on an agent that does not advertise it")

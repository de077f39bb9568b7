"""Enum openness: an unrecognised status value is reported by name, never crashes the suite."""

from conformance.acp import AcpTarget
from conformance.expect import KNOWN_STATUS, is_extension
from conformance.outcomes import Info, Violation
from conformance.registry import Level, case

from . import spec


@case("status.enum.known-values", level=Level.SHOULD, spec=spec.OPEN_ENUM)
async def known_status_values(acp: AcpTarget, details: dict) -> None:
    """Status values are `active` / `inactive`; others are named (`_`-prefixed ones are extensions)."""
    probes = {"new": await acp.new_session()}
    if acp.advertises("close"):
        closed = await acp.new_session()
        await acp.close(closed)
        probes["closed"] = closed
    probes["unknown"] = acp.unknown_id()
    seen: dict[str, str] = {}
    for label, sid in probes.items():
        reply = await acp.status(sid)
        if reply.ok and isinstance(reply.result, dict) and isinstance(reply.result.get("status"), str):
            seen[label] = reply.result["status"]
    details["values"] = seen
    unknown = {k: v for k, v in seen.items() if v not in KNOWN_STATUS and not is_extension(v)}
    if unknown:
        listing = ", ".join(f"{v!r} (for a {k} session)" for k, v in unknown.items())
        raise Violation(
            f"unrecognised status value {listing}: clients treat it as not active; "
            "only `_`-prefixed values are free for extensions",
            expected=sorted(KNOWN_STATUS),
            observed=unknown,
        )
    extensions = {k: v for k, v in seen.items() if is_extension(v)}
    if extensions:
        raise Info(f"extension status values in use: {extensions}")

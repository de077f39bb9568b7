"""Enum openness: an unrecognised status value is reported by name, never crashes the suite."""

from conformance.cases.acp import spec

from conformance.core import revisions
from conformance.core.outcomes import Info, NotApplicable, Violation
from conformance.core.registry import Level, case
from conformance.targets.acp.expect import is_extension
from conformance.targets.acp.target import AcpTarget


async def _status_words(acp: AcpTarget, *, unknown: bool, restart: bool) -> dict[str, str]:
    """The status word for a new session, a closed one (or, if asked, one kept over a restart),
    and, if asked, a never-created id: {"new": "active", ...}, results only."""
    probes = {"new": await acp.new_session()}
    if acp.advertises("close"):
        closed = await acp.new_session()
        await acp.close(closed)
        probes["closed"] = closed
    elif restart and acp.advertises("persist") and acp.harness.config.restartable:
        kept = await acp.new_session()
        await acp.prompt(kept, "hello")
        await acp.restart()
        probes["after restart"] = kept
    if unknown:
        probes["unknown"] = acp.unknown_id()
    seen: dict[str, str] = {}
    for label, sid in probes.items():
        reply = await acp.status(sid)
        if reply.ok and isinstance(reply.result, dict) and isinstance(reply.result.get("status"), str):
            seen[label] = reply.result["status"]
    return seen


@case("status.enum.known-values", level=Level.SHOULD, spec=spec.OPEN_ENUM)
async def known_status_values(acp: AcpTarget, details: dict) -> None:
    """Status values are the revision's two words; others are named (`_`-prefixed ones are extensions)."""
    seen = details["values"] = await _status_words(acp, unknown=True, restart=False)
    known = revisions.known_words()
    unknown = {
        k: v for k, v in seen.items() if v not in known and not is_extension(v) and not revisions.foreign(v)
    }
    if unknown:
        listing = ", ".join(f"{v!r} (for a {k} session)" for k, v in unknown.items())
        raise Violation(
            f"unrecognised status value {listing}: clients treat it as not active; "
            "only `_`-prefixed values are free for extensions",
            expected=sorted(known),
            observed=unknown,
        )
    extensions = {k: v for k, v in seen.items() if is_extension(v)}
    if extensions:
        raise Info(f"extension status values in use: {extensions}")


@case("status.vocabulary.one-revision", level=Level.MUST, spec=spec.OPEN_ENUM)
async def one_revision_vocabulary(acp: AcpTarget, details: dict) -> None:
    """The agent uses one revision's words for every state (never `open` beside `inactive`)."""
    seen = details["values"] = await _status_words(acp, unknown=False, restart=True)
    current = revisions.current()
    mixed = {k: (v, revisions.foreign(v)) for k, v in seen.items() if revisions.foreign(v)}
    if mixed:
        listing = ", ".join(f"{v!r} of {other} (for a {k} session)" for k, (v, other) in mixed.items())
        raise Violation(
            f"the agent speaks {current.name} ({' / '.join(current.vocabulary.values())}) but also answers "
            f"{listing}: it mixes two revisions' vocabularies, so no client of either reads it right",
            expected=sorted(current.vocabulary.values()),
            observed=seen,
        )
    if len(seen) < 2:
        raise NotApplicable("only one state could be reached (no session/close, no persistence)")

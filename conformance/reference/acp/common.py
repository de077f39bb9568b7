"""What both reference agents (v1 and v2) share: the state folder, the status words of each spec
revision, the unknown-session error and timestamps."""

from __future__ import annotations

from datetime import UTC, datetime

from acp import RequestError

STATE_DIR = ".acp-reference-sessions"
# The wire words of each revision of session/status, for --revision (this agent is a system
# under test and imports nothing from the suite).
REVISION_WORDS = {
    "rfd-2026-10-26": {"active": "active", "inactive": "inactive"},
    "acp-unstable-2026-11": {"active": "open", "inactive": "saved"},
}


# The error for a prompt past the session's allowance (--session-request-limit): a server error
# of the implementation's own (JSON-RPC leaves -32000 to -32099 to servers; ACP uses -32000 for
# auth_required and -32002 for an unknown resource).
LIMIT_REACHED = -32010


def not_found(session_id: str) -> RequestError:
    """The error for an unknown session: -32002, "Resource not found", data.sessionId."""
    return RequestError(-32002, "Resource not found", {"sessionId": session_id})


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")

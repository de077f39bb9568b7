"""The HTTP target's own options: who asks, and about which session."""

from __future__ import annotations

import sys
import uuid
from dataclasses import dataclass, field
from typing import Any

from conformance.core.config import UsageError

__all__ = ["HttpOptions", "reference_command"]


def reference_command(transport: str = "http", values: dict[str, Any] | None = None) -> list[str]:
    """The embedded reference service (FastAPI), listening on a free local port."""
    return [sys.executable, "-m", "conformance.reference.http.service", "--listen", "127.0.0.1:0"]


@dataclass
class HttpOptions:
    """Who asks, and about what, for `GET /sessions/{id}/status` (--user-id and friends)."""

    user_id: str = field(default_factory=lambda: f"conformance-user-{uuid.uuid4().hex[:8]}")
    other_user_id: str = field(default_factory=lambda: f"conformance-other-{uuid.uuid4().hex[:8]}")
    agent_id: str | None = None  # an existing session to probe, for services the suite cannot drive
    session_id: str | None = None
    long_run: float | None = None  # seconds, more than the service's run-lease time to live
    # The service's policies, as the user states them: a session nothing uses for this many
    # seconds is evicted; at most this many sessions are kept in memory; this many requests per
    # session are allowed (a status probe must spend none of them).
    idle_evict_after: float | None = None
    memory_cap: int | None = None
    request_limit: int | None = None

    @classmethod
    def from_options(
        cls,
        *,
        user_id: str | None,
        other_user_id: str | None,
        agent_id: str | None,
        session_id: str | None,
        long_run: str | None = None,
        idle_evict_after: str | None = None,
        memory_cap: str | None = None,
        request_limit: str | None = None,
    ) -> HttpOptions:
        options = cls(
            agent_id=agent_id,
            session_id=session_id,
            long_run=_seconds("--http-long-run", long_run),
            idle_evict_after=_seconds("--http-idle-evict-after", idle_evict_after),
            memory_cap=_count("--http-memory-cap", memory_cap),
            request_limit=_count("--http-request-limit", request_limit),
        )
        for name, value in (("--user-id", user_id), ("--other-user-id", other_user_id)):
            if value is not None and (not value.strip() or any(c in value for c in "\r\n")):
                raise UsageError(f"{name} {value!r} is not a usable header value")
        options.user_id = user_id or options.user_id
        options.other_user_id = other_user_id or options.other_user_id
        if options.user_id == options.other_user_id:
            raise UsageError("--other-user-id must differ from --user-id: it plays another owner")
        if (agent_id is None) != (session_id is None):
            raise UsageError("pass --agent-id and --session-id together (an existing session of --user-id)")
        return options


def _seconds(name: str, value: str | None) -> float | None:
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        raise UsageError(f"{name} {value!r} is not a number of seconds") from None
    if not 0 < seconds <= 3600:
        raise UsageError(f"{name} {value!r} must be more than 0 and at most 3600 seconds")
    return seconds


MAX_COUNT = 10_000  # sessions or requests the suite makes for one pressure, at most


def _count(name: str, value: str | None) -> int | None:
    if value is None:
        return None
    try:
        count = int(value)
    except ValueError:
        raise UsageError(f"{name} {value!r} is not a whole number") from None
    if not 0 < count <= MAX_COUNT:
        raise UsageError(f"{name} {value!r} must be more than 0 and at most {MAX_COUNT}")
    return count

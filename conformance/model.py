"""An independent model of what each session may be, allowing every path the spec allows.

The model knows only what the client did. For each session it keeps the set of answers a
status call may give right now; lifecycle calls move it, status never does. Paths the spec
allows and the model therefore accepts: eviction (`active` may become `inactive` at any time),
the MAY path (`inactive` for ids the agent does not hold, including unknown ones), and an agent
that does not persist sessions (`unknown` after close or restart).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ACTIVE", "INACTIVE", "UNKNOWN", "SessionModel"]

ACTIVE, INACTIVE, UNKNOWN = "active", "inactive", "unknown"


@dataclass
class ModelSession:
    ref: str  # symbolic name: s0, s1 … (created) or u0, u1 … (never created)
    created: bool
    held: bool = False  # the client created or resumed it and nothing since let it go
    prompted: bool = False
    dirty: bool = True  # a non-status operation touched it since the last session/list
    ops: list[str] = field(default_factory=list)  # non-status operations, for confirmations


class SessionModel:
    def __init__(self, *, persists: bool, may_inactive_for_unknown: bool = True) -> None:
        self.persists = persists
        self.may_inactive_for_unknown = may_inactive_for_unknown  # the revision has the MAY path
        self.sessions: dict[str, ModelSession] = {}
        self.may_path_seen = False

    def add(self, ref: str, *, created: bool) -> ModelSession:
        session = ModelSession(ref, created, held=created)
        self.sessions[ref] = session
        return session

    def allowed(self, ref: str) -> set[str]:
        """Status answers the spec allows for this session now ('unknown' stands for -32002)."""
        s = self.sessions[ref]
        if not s.created:
            return {UNKNOWN, INACTIVE} if self.may_inactive_for_unknown else {UNKNOWN}
        if s.held:
            return {ACTIVE, INACTIVE}  # INACTIVE: evicted
        if self.persists and s.prompted:
            return {INACTIVE}
        # Not persisted (or persisted only after a first prompt): it may be gone.
        return {INACTIVE, UNKNOWN}

    # -- transitions on what the client did (never on status) ----------------------------------

    def touch(self, ref: str, op: str) -> None:
        s = self.sessions[ref]
        s.dirty = True
        s.ops.append(op)

    def released(self, ref: str) -> None:
        self.sessions[ref].held = False

    def evicted(self, ref: str) -> None:
        """The agent let the session go on its own (allowed at any time)."""
        self.sessions[ref].held = False

    def resumed(self, ref: str) -> None:
        self.sessions[ref].held = True

    def restarted(self) -> None:
        for s in self.sessions.values():
            s.held = False
            s.dirty = True

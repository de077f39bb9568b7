"""An independent model of what each session may be, allowing every path the spec allows.

The model knows only what the client did, and what status itself claimed. For each session it
keeps the set of answers a status call may give right now; lifecycle calls move it, status never
does. Paths the spec allows and the model therefore accepts: eviction (a session in memory may
leave memory at any time, and an agent that cannot resume it then forgets it), the MAY path
(`inactive` for ids the agent does not hold, including unknown ones), and an agent that does not
keep a session once it is closed or restarted (-32002). What the model holds the agent to instead
is consistency: a session status called unknown must not resume, and one it called inactive must
resume (or, on the MAY path, fail with -32002 because it does not exist).
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
    gone: bool = False  # status said -32002 for it (or a resume confirmed it does not exist)
    claimed: str | None = None  # status's last answer since the last lifecycle call on it
    asked: bool = False  # status was ever asked about it
    dirty: bool = True  # a non-status operation touched it since the last session/list
    ops: list[str] = field(default_factory=list)  # non-status operations, for confirmations


class SessionModel:
    def __init__(self, *, may_inactive_for_unknown: bool = True) -> None:
        self.may_inactive_for_unknown = may_inactive_for_unknown  # the revision has the MAY path
        self.sessions: dict[str, ModelSession] = {}

    def add(self, ref: str, *, created: bool) -> ModelSession:
        session = ModelSession(ref, created, held=created)
        self.sessions[ref] = session
        return session

    def allowed(self, ref: str) -> set[str]:
        """Status answers the spec allows for this session now ('unknown' stands for -32002)."""
        s = self.sessions[ref]
        not_there = {UNKNOWN, INACTIVE} if self.may_inactive_for_unknown else {UNKNOWN}
        if not s.created or s.gone:
            return not_there
        if s.held:
            return {ACTIVE, INACTIVE, UNKNOWN}  # INACTIVE, UNKNOWN: evicted (and forgotten)
        return {INACTIVE, UNKNOWN}  # let go: kept to resume, or not kept at all

    # -- what status claimed -------------------------------------------------------------------

    def claimed(self, ref: str, answer: str) -> None:
        s = self.sessions[ref]
        s.claimed, s.asked = answer, True
        if answer == UNKNOWN and s.created:
            s.gone = True

    # -- transitions on what the client did (never on status) ----------------------------------

    def touch(self, ref: str, op: str) -> None:
        s = self.sessions[ref]
        s.dirty = True
        s.ops.append(op)
        s.claimed = None

    def released(self, ref: str) -> None:
        self.sessions[ref].held = False

    def evicted(self, ref: str) -> None:
        """The agent let the session go on its own (allowed at any time)."""
        self.sessions[ref].held = False

    def resumed(self, ref: str) -> None:
        s = self.sessions[ref]
        s.held, s.gone = True, False

    def restarted(self) -> None:
        for s in self.sessions.values():
            s.held = False
            s.dirty = True
            s.claimed = None

"""The reference `session_heartbeat` semantics, transport-free: sessions, idempotency, instructions.

Kept apart from the MCP plumbing (``server.py``) so an implementer can read the rules in
one place and the broken servers in ``tests/agents/mcp`` can override exactly one of them.

Rules (spec: the tool's description and input schema, MCP 2025-06-18):
- arguments are checked against the tool's input schema, plus "stepIndex: Send with stepCount";
- the first heartbeat for a session id creates it, owned by the caller; any other caller gets
  the same error as for a session that cannot be accessed, revealing nothing;
- a retry (same caller, session and idempotency key, same arguments) returns the first result
  and applies nothing; the same key with other arguments is an error;
- pending instructions (enqueued by an operator) are delivered a page at a time; an unacknowledged
  one comes again on later heartbeats; one whose id was acknowledged never comes again;
  ``instructionCursor`` continues a page where the previous one ended.

Machinery real servers have, each off by default and switched on by its own option (server.py's
command-line flags): a cap on sessions with least-recently-used eviction (``session_cap``), idle
expiry (``session_ttl``), a per-session request allowance (``request_limit`` per
``request_window`` seconds), a storage round trip that lets calls overlap (``io_delay``), and
length limits that refuse a longer value rather than cut it (``max_length``). Only a heartbeat
that is applied uses a session: a retry answered from its first result, a rejected call and
another caller's call neither refresh it, nor keep it in memory, nor spend its allowance. An
evicted or expired session is forgotten whole: its state, its instructions and its keys.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import jsonschema

__all__ = ["INPUT_SCHEMA", "HeartbeatError", "HeartbeatStore", "spool_dir"]

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sessionId": {"type": "string", "description": "Session ID"},
        "status": {"enum": ["active", "waiting", "blocked"]},
        "progressPercent": {"type": "number", "minimum": 0, "maximum": 100},
        "currentStep": {"type": "string"},
        "stepIndex": {
            "type": "integer",
            "minimum": 1,
            "description": "Optional 1-based position of the current step. Send with stepCount.",
        },
        "stepCount": {
            "type": "integer",
            "minimum": 1,
            "maximum": 1000,
            "description": "Optional total planned steps. Send with stepIndex.",
        },
        "acknowledgedInstructionIds": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Instruction IDs the agent has received and processed.",
        },
        "instructionCursor": {
            "type": "string",
            "description": "Opaque continuation cursor returned with the previous pending-instruction page",
        },
        "idempotencyKey": {"type": "string", "description": "Unique retry key"},
    },
    "required": ["sessionId", "idempotencyKey"],
    "additionalProperties": False,
}
# Built once: every call is checked against it, and building one costs more than most checks.
_ARGUMENTS = jsonschema.Draft202012Validator(INPUT_SCHEMA)
STATE_FIELDS = ("status", "progressPercent", "currentStep", "stepIndex", "stepCount")
NOT_ACCESSIBLE = "session not found or not accessible"
# The string arguments a storage layer keeps, whose length it limits (``max_length``).
STORED_STRINGS = ("sessionId", "idempotencyKey", "currentStep", "instructionCursor")
LIMITS_FILE = "limits"  # in the spool (not *.json: no instruction), the limits instruct.py applies


def spool_dir(cwd: str | Path = ".") -> Path:
    """Where the stdio server's operator drops instructions (see instruct.py)."""
    return Path(cwd) / ".heartbeat-spool"


class HeartbeatError(Exception):
    """A call the tool rejects: returned as a result with isError true (or, with ``code``, as a
    JSON-RPC error with that code)."""

    code: int | None = None


@dataclass
class Instruction:
    seq: int
    id: str
    text: str


@dataclass
class Session:
    owner: str
    state: dict[str, Any] = field(default_factory=dict)
    instructions: list[Instruction] = field(default_factory=list)
    acknowledged: set[str] = field(default_factory=set)
    last_used: float = 0.0  # when a heartbeat was last applied to it
    calls: list[float] = field(default_factory=list)  # when, within the request window


class HeartbeatStore:
    def __init__(
        self,
        *,
        page_size: int = 2,
        spool: Path | None = None,
        session_cap: int | None = None,
        session_ttl: float | None = None,
        request_limit: int | None = None,
        request_window: float = 60.0,
        io_delay: float = 0.0,
        max_length: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.page_size = page_size
        self.spool = spool
        self.session_cap = session_cap
        self.session_ttl = session_ttl
        self.request_limit = request_limit
        self.request_window = request_window
        self.io_delay = io_delay
        self.max_length = max_length
        self.clock = clock
        # In least-recently-used order: a session that is used moves to the end.
        self.sessions: dict[str, Session] = {}
        self.waiting: dict[str, list[Instruction]] = {}  # enqueued before the session's first heartbeat
        self.results: dict[tuple[str, str, str], tuple[str, dict[str, Any]]] = {}
        self.locks: dict[str, anyio.Lock] = {}
        self._seq = 0
        self._heartbeats = 0
        if spool is not None and max_length is not None:
            spool.mkdir(exist_ok=True)
            (spool / LIMITS_FILE).write_text(json.dumps({"maxLength": max_length}), encoding="utf-8")

    # -- the operator's side -------------------------------------------------------------------

    def enqueue(self, session_id: str, text: str) -> str:
        if self.max_length is not None and len(text) > self.max_length:
            raise HeartbeatError(f"the instruction is longer than {self.max_length} characters")
        self.expire()
        self._seq += 1
        instruction = Instruction(self._seq, f"ins-{uuid.uuid4().hex[:12]}", text)
        session = self.sessions.get(session_id)
        (session.instructions if session else self.waiting.setdefault(session_id, [])).append(instruction)
        return instruction.id

    def read_spool(self) -> None:
        if self.spool is None or not self.spool.is_dir():
            return
        for path in sorted(self.spool.glob("*.json")):
            try:
                item = json.loads(path.read_text(encoding="utf-8"))
                path.unlink()
            except (OSError, ValueError):
                continue
            try:
                self.enqueue(str(item.get("sessionId", "")), str(item.get("text", "")))
            except HeartbeatError:  # past a limit: instruct.py refused it already, to the operator
                continue

    # -- the tool ------------------------------------------------------------------------------

    def validate(self, args: dict[str, Any]) -> None:
        errors = sorted(_ARGUMENTS.iter_errors(args), key=str)
        if errors:
            where = "/".join(str(p) for p in errors[0].absolute_path) or "arguments"
            raise HeartbeatError(f"invalid arguments: {where}: {errors[0].message}")
        if ("stepIndex" in args) != ("stepCount" in args):
            raise HeartbeatError("invalid arguments: send stepIndex with stepCount")
        if self.max_length is not None:
            self.check_lengths(args)

    def check_lengths(self, args: dict[str, Any]) -> None:
        """The storage layer's limits: a longer value is refused, never cut."""
        limit = self.max_length or 0
        too_long = [name for name in STORED_STRINGS if len(args.get(name, "")) > limit]
        if any(len(i) > limit for i in args.get("acknowledgedInstructionIds", [])):
            too_long.append("acknowledgedInstructionIds")
        if too_long:
            raise HeartbeatError(f"invalid arguments: {', '.join(too_long)} longer than {limit} characters")

    async def call(self, caller: str, args: dict[str, Any]) -> dict[str, Any]:
        """The tool call as the server runs it: the seam where a variant can wait in between. With
        an io_delay, a new call waits for its storage round trip between reading and writing, and
        other sessions' calls go on meanwhile; one session's calls take turns (its lock), so a
        retry sent while its first call runs waits for it and is answered with its result."""
        if not self.io_delay:
            return self.heartbeat(caller, args)
        async with self.lock(args.get("sessionId")):
            done = self.replay(caller, args)
            if done is not None:
                return done
            await anyio.sleep(self.io_delay)
            return self.execute(caller, args)

    def lock(self, session_id: Any) -> anyio.Lock:
        return self.locks.setdefault(str(session_id), anyio.Lock())

    def heartbeat(self, caller: str, args: dict[str, Any]) -> dict[str, Any]:
        done = self.replay(caller, args)
        return done if done is not None else self.execute(caller, args)

    def replay(self, caller: str, args: dict[str, Any]) -> dict[str, Any] | None:
        """Validates the call and checks access; a retry's first result, or None for a new call."""
        self.validate(args)
        self.expire()
        sid, key = args["sessionId"], args["idempotencyKey"]
        session = self.sessions.get(sid)
        if session is not None and not self.may_access(caller, session):
            raise HeartbeatError(NOT_ACCESSIBLE)
        done = self.results.get((caller, sid, key))
        if done is None:
            return None
        if done[0] != fingerprint(args):
            raise HeartbeatError("idempotencyKey was already used with different arguments")
        return done[1]

    def execute(self, caller: str, args: dict[str, Any]) -> dict[str, Any]:
        """A new call (validated, access checked): applied once, its result kept for retries."""
        sid, key = args["sessionId"], args["idempotencyKey"]
        self.read_spool()
        self.expire()
        session = self.sessions.get(sid)
        if session is None:
            session = self.sessions[sid] = Session(owner=caller, instructions=self.waiting.pop(sid, []))
        self.admit(session)
        self.use(sid, session)
        self.evict()
        result = self.apply(session, sid, args)
        self.results[(caller, sid, key)] = (fingerprint(args), result)
        return result

    # -- memory, time and allowances -----------------------------------------------------------

    def admit(self, session: Session) -> None:
        """The per-session allowance: a call past it is refused, and spends nothing."""
        if self.request_limit is None:
            return
        since = self.clock() - self.request_window
        session.calls = [t for t in session.calls if t > since]
        if len(session.calls) >= self.request_limit:
            raise HeartbeatError(
                f"rate limited: at most {self.request_limit} heartbeats per {self.request_window:g} s for a session"
            )

    def use(self, sid: str, session: Session) -> None:
        """A heartbeat applied: the session is the most recently used, its idle time starts over
        and its allowance is spent by one call."""
        session.last_used = self.clock()
        session.calls.append(session.last_used)
        self.sessions[sid] = self.sessions.pop(sid)

    def evict(self) -> None:
        """Past the cap, forget the least recently used sessions."""
        if self.session_cap is None:
            return
        while len(self.sessions) > self.session_cap:
            self.forget(next(iter(self.sessions)))

    def expire(self) -> None:
        """Forget the sessions no heartbeat has used for session_ttl seconds."""
        if self.session_ttl is None:
            return
        idle_since = self.clock() - self.session_ttl
        for sid in [sid for sid, s in self.sessions.items() if s.last_used <= idle_since]:
            self.forget(sid)

    def forget(self, sid: str) -> None:
        """The session, its instructions and its keys' results."""
        del self.sessions[sid]
        for done in [k for k in self.results if k[1] == sid]:
            del self.results[done]

    def may_access(self, caller: str, session: Session) -> bool:
        return session.owner == caller

    def apply(self, session: Session, sid: str, args: dict[str, Any]) -> dict[str, Any]:
        self._heartbeats += 1
        for name in STATE_FIELDS:
            if name in args:
                session.state[name] = args[name]
        self.acknowledge(session, args.get("acknowledgedInstructionIds", []))
        page, cursor = self.page(session, args.get("instructionCursor"))
        return {
            "sessionId": sid,
            "heartbeatId": f"hb-{self._heartbeats}",
            **{name: session.state.get(name) for name in STATE_FIELDS},
            "instructions": [{"id": i.id, "text": i.text} for i in page],
            "nextCursor": cursor,
        }

    def acknowledge(self, session: Session, ids: list[str]) -> None:
        session.acknowledged.update(ids)

    def pending(self, session: Session) -> list[Instruction]:
        return [i for i in session.instructions if i.id not in session.acknowledged]

    def page(self, session: Session, cursor: str | None) -> tuple[list[Instruction], str | None]:
        after = decode_cursor(cursor) if cursor is not None else 0
        rest = [i for i in self.pending(session) if i.seq > after]
        page = rest[: self.page_size]
        more = len(rest) > len(page)
        return page, (encode_cursor(page[-1].seq) if more else None)


def fingerprint(args: dict[str, Any]) -> str:
    return json.dumps(args, sort_keys=True)


def encode_cursor(seq: int) -> str:
    return base64.urlsafe_b64encode(f"after:{seq}".encode()).decode()


def decode_cursor(cursor: str) -> int:
    try:
        word, _, number = base64.urlsafe_b64decode(cursor.encode()).decode().partition(":")
        if word == "after" and number.isdigit():
            return int(number)
    except (ValueError, UnicodeError):
        pass
    raise HeartbeatError("invalid instructionCursor: pass the nextCursor of the previous heartbeat")

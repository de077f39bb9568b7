"""The reference `session_heartbeat` semantics, transport-free: sessions, idempotency, instructions.

Kept apart from the MCP plumbing (``mcp_server.py``) so an implementer can read the rules in
one place and the broken servers in ``tests/agents/mcp`` can override exactly one of them.

Rules (spec: ../shared/spec/001_*.txt):
- arguments are checked against the tool's input schema, plus "stepIndex: Send with stepCount";
- the first heartbeat for a session id creates it, owned by the caller; any other caller gets
  the same error as for a session that cannot be accessed, revealing nothing;
- a retry (same caller, session and idempotency key, same arguments) returns the first result
  and applies nothing; the same key with other arguments is an error;
- pending instructions (enqueued by an operator) are delivered a page at a time; an unacknowledged
  one comes again on later heartbeats; one whose id was acknowledged never comes again;
  ``instructionCursor`` continues a page where the previous one ended.
"""

from __future__ import annotations

import base64
import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
STATE_FIELDS = ("status", "progressPercent", "currentStep", "stepIndex", "stepCount")
NOT_ACCESSIBLE = "session not found or not accessible"


def spool_dir(cwd: str | Path = ".") -> Path:
    """Where the stdio server's operator drops instructions (see mcp_instruct.py)."""
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


class HeartbeatStore:
    def __init__(self, *, page_size: int = 2, spool: Path | None = None) -> None:
        self.page_size = page_size
        self.spool = spool
        self.sessions: dict[str, Session] = {}
        self.waiting: dict[str, list[Instruction]] = {}  # enqueued before the session's first heartbeat
        self.results: dict[tuple[str, str, str], tuple[str, dict[str, Any]]] = {}
        self._seq = 0
        self._heartbeats = 0

    # -- the operator's side -------------------------------------------------------------------

    def enqueue(self, session_id: str, text: str) -> str:
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
            self.enqueue(str(item.get("sessionId", "")), str(item.get("text", "")))

    # -- the tool ------------------------------------------------------------------------------

    def validate(self, args: dict[str, Any]) -> None:
        errors = sorted(jsonschema.Draft202012Validator(INPUT_SCHEMA).iter_errors(args), key=str)
        if errors:
            where = "/".join(str(p) for p in errors[0].absolute_path) or "arguments"
            raise HeartbeatError(f"invalid arguments: {where}: {errors[0].message}")
        if ("stepIndex" in args) != ("stepCount" in args):
            raise HeartbeatError("invalid arguments: send stepIndex with stepCount")

    async def call(self, caller: str, args: dict[str, Any]) -> dict[str, Any]:
        """The tool call as the server runs it: the seam where a variant can wait in between."""
        return self.heartbeat(caller, args)

    def heartbeat(self, caller: str, args: dict[str, Any]) -> dict[str, Any]:
        done = self.replay(caller, args)
        return done if done is not None else self.execute(caller, args)

    def replay(self, caller: str, args: dict[str, Any]) -> dict[str, Any] | None:
        """Validates the call and checks access; a retry's first result, or None for a new call."""
        self.validate(args)
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
        session = self.sessions.get(sid)
        if session is None:
            session = self.sessions[sid] = Session(owner=caller, instructions=self.waiting.pop(sid, []))
        result = self.apply(session, sid, args)
        self.results[(caller, sid, key)] = (fingerprint(args), result)
        return result

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

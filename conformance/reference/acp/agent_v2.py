"""A conforming ACP v2 agent with `session/status` and its foreground `state` snapshot.

The Python SDK (agent-client-protocol 0.12) speaks v1 only, so this agent uses the SDK's
JSON-RPC `Connection` with its own method handler. v2 differs from v1 where this matters:
`initialize` carries `info` / `capabilities`, a `session` capability object means the baseline
session methods (new, list, resume, close, prompt, cancel), `session/prompt` only acknowledges
(`{"messageId"}`) and the turn reports itself through `state_update` session updates
(`running`, `requires_action` while it waits on `session/request_permission`, then `idle` with
its `stopReason`), and `session/status` adds `state`: the same snapshot, sent by no notification.

Test hooks in the prompt text: "[slow]" keeps the turn running for half a second, "[permission]"
asks the client for permission first.

The session machinery of memory.py (memory cap, idle eviction, prompt allowances, serialised or
overlapping requests, length limits) works here as in the v1 agent, each part off by default.

Run: python -m conformance.reference.acp.agent --protocol 2 [--revision acp-unstable-2026-11] [--memory-cap N] …
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.connection import Connection
from acp.stdio import stdio_streams

from .common import LIMIT_REACHED, REVISION_WORDS, STATE_DIR, not_found, now_iso
from .guard import guard_stdin
from .memory import Policy, SessionMemory

__all__ = ["ReferenceAgentV2", "serve_v2"]

SLOW_TURN = 0.5


class ReferenceAgentV2:
    words: dict[str, str] = {"active": "active", "inactive": "inactive"}  # noqa: RUF012
    policy = Policy()  # the session machinery (memory.py); all off by default

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        state_dir.mkdir(parents=True, exist_ok=True)
        self.loaded: dict[str, dict[str, Any]] = {}
        self.known: dict[str, dict[str, Any]] = {}
        self.state: dict[str, dict[str, Any]] = {}  # session id -> its foreground state snapshot
        self.turns: dict[str, asyncio.Task[None]] = {}
        self.conn: Connection | None = None
        self.memory = SessionMemory(self.policy, self.evict, lambda sid: sid in self.turns)
        self.serial = asyncio.Lock()  # --serialise: one request at a time
        for path in state_dir.glob("*.json"):
            session = json.loads(path.read_text(encoding="utf-8"))
            self.known[session["sessionId"]] = session

    # -- dispatch ------------------------------------------------------------------------------

    async def handle(self, method: str, params: Any, is_notification: bool) -> Any:
        if not self.policy.serialise:
            await self.request_delay()
            return await self.dispatch(method, params, is_notification)
        async with self.serial:  # in arrival order (v2 prompts answer at once: the turn runs beside)
            await self.request_delay()
            return await self.dispatch(method, params, is_notification)

    async def request_delay(self) -> None:
        if self.policy.request_delay:
            await asyncio.sleep(self.policy.request_delay)

    async def dispatch(self, method: str, params: Any, is_notification: bool) -> Any:
        params = params if isinstance(params, dict) else {}
        if is_notification:
            if method == "session/cancel":
                await self.cancel(params)
            return None
        handler = {
            "initialize": self.initialize,
            "session/new": self.new_session,
            "session/status": self.status,
            "session/resume": self.resume,
            "session/close": self.close,
            "session/list": self.list_sessions,
            "session/prompt": self.prompt,
        }.get(method)
        if handler is None:
            raise RequestError.method_not_found(method)
        return await handler(params)

    # -- methods -------------------------------------------------------------------------------

    async def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "protocolVersion": 2,
            "info": {"name": "acp-reference-agent-v2", "version": "0.1.0"},
            "capabilities": {"session": {"status": {}}},
            "authMethods": [],
        }

    async def new_session(self, params: dict[str, Any]) -> dict[str, Any]:
        cwd = params.get("cwd")
        if not isinstance(cwd, str):
            raise RequestError.invalid_params({"reason": "cwd (string) is required"})
        if not self.fits(cwd):
            raise RequestError.invalid_params(
                {"reason": f"cwd is longer than {self.policy.max_length} characters"}
            )
        session_id = f"sess_{uuid.uuid4().hex}"
        session = {"sessionId": session_id, "cwd": cwd, "updatedAt": now_iso(), "history": []}
        await self.storage_io()
        self.loaded[session_id] = session
        self.state[session_id] = {"state": "idle"}
        self.save(session)
        self.memory.use(session_id)
        return {"sessionId": session_id}

    async def status(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = params.get("sessionId")
        if not isinstance(session_id, str):
            raise RequestError.invalid_params({"reason": "sessionId (string) is required"})
        if not self.fits(session_id):
            raise not_found(session_id)  # longer than storage takes: never stored
        if session_id in self.loaded:
            return {"status": self.words["active"], "state": dict(self.state[session_id])}
        if session_id in self.known:
            return {"status": self.words["inactive"]}
        raise not_found(session_id)

    async def resume(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id: Any = params.get("sessionId")  # looked up as sent: an id of no session finds none
        await self.storage_io()
        session = self.loaded.get(session_id) or self.known.get(session_id)
        if session is None:
            raise not_found(str(session_id))
        self.loaded[session["sessionId"]] = session
        self.memory.use(session["sessionId"])
        snapshot = self.state.setdefault(session["sessionId"], {"state": "idle"})
        # "Resume MUST send a current-state snapshot after any replay and before its response."
        await self.update(session["sessionId"], {"sessionUpdate": "state_update", **snapshot})
        return {}

    async def close(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = params.get("sessionId")
        if session_id not in self.loaded and session_id not in self.known:
            raise not_found(str(session_id))
        turn = self.turns.pop(session_id, None)
        if turn is not None:
            turn.cancel()
        self.memory.forget(session_id)
        self.loaded.pop(session_id, None)
        self.state.pop(session_id, None)
        return {}

    async def list_sessions(self, params: dict[str, Any]) -> dict[str, Any]:
        cwd = params.get("cwd")
        entries = [
            {k: s[k] for k in ("sessionId", "cwd", "updatedAt")}
            for _, s in sorted(self.known.items())
            if cwd is None or s["cwd"] == cwd
        ]
        return {"sessions": entries}

    async def prompt(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id: Any = params.get("sessionId")  # looked up as sent: an id of no session finds none
        session = self.loaded.get(session_id)
        if session is None:
            raise not_found(str(session_id))
        blocks = params.get("prompt")
        if not isinstance(blocks, list) or not blocks:
            raise RequestError.invalid_params({"reason": "prompt must be a non-empty array"})
        text = " ".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict)).strip()
        if not self.fits(text):
            raise RequestError.invalid_params(
                {"reason": f"the prompt is longer than {self.policy.max_length} characters"}
            )
        if not self.memory.may_prompt(session["sessionId"]):
            raise RequestError(
                LIMIT_REACHED,
                "Session request limit reached",
                {"sessionId": session["sessionId"], "limit": self.policy.session_request_limit},
            )
        self.memory.use(session["sessionId"])
        message_id = str(params.get("messageId") or uuid.uuid4())
        self.set_state(session["sessionId"], "running")  # before the ack: a status right after sees it
        self.turns[session["sessionId"]] = asyncio.ensure_future(self.turn(session, text))
        return {"messageId": message_id}

    async def cancel(self, params: dict[str, Any]) -> None:
        session_id: Any = params.get("sessionId")  # looked up as sent: an id of no turn finds none
        turn = self.turns.pop(session_id, None)
        if turn is not None:
            turn.cancel()
            await self.finish(params["sessionId"], "cancelled")

    # -- the turn ------------------------------------------------------------------------------

    async def turn(self, session: dict[str, Any], text: str) -> None:
        session_id = session["sessionId"]
        await self.update(session_id, {"sessionUpdate": "state_update", "state": "running"})
        if "[slow]" in text:
            await asyncio.sleep(SLOW_TURN)
        if "[permission]" in text:
            self.set_state(session_id, "requires_action")
            await self.update(session_id, {"sessionUpdate": "state_update", "state": "requires_action"})
            assert self.conn is not None
            await self.conn.send_request(
                "session/request_permission",
                {
                    "sessionId": session_id,
                    "toolCall": {"toolCallId": "call_1", "title": "write a file"},
                    "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}],
                },
            )
            self.set_state(session_id, "running")
            await self.update(session_id, {"sessionUpdate": "state_update", "state": "running"})
        reply = f"echo: {text}"
        await self.update(
            session_id, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": reply}}
        )
        session["history"] += [["user", text], ["agent", reply]]
        session["updatedAt"] = now_iso()
        await self.storage_io()
        self.save(session)
        self.turns.pop(session_id, None)
        if session_id in self.loaded:
            self.memory.use(session_id)
        await self.finish(session_id, "end_turn")

    async def finish(self, session_id: str, stop_reason: str) -> None:
        self.set_state(session_id, "idle", stop_reason)
        await self.update(
            session_id, {"sessionUpdate": "state_update", "state": "idle", "stopReason": stop_reason}
        )

    def set_state(self, session_id: str, state: str, stop_reason: str | None = None) -> None:
        if session_id in self.loaded:
            self.state[session_id] = {"state": state} | ({"stopReason": stop_reason} if stop_reason else {})

    # -- storage and notifications -------------------------------------------------------------

    def evict(self, session_id: str) -> None:
        """The agent takes the session out of memory on its own (memory cap, idle): it stays on
        disk, so it is inactive and can be resumed (its foreground state goes with it)."""
        self.loaded.pop(session_id, None)
        self.state.pop(session_id, None)

    def fits(self, value: str) -> bool:
        """Whether storage takes the value whole (--max-length): a longer one is refused, never cut."""
        return self.policy.max_length is None or len(value) <= self.policy.max_length

    async def storage_io(self) -> None:
        """Storage's own time (--storage-delay): other requests go on meanwhile."""
        if self.policy.storage_delay:
            await asyncio.sleep(self.policy.storage_delay)

    def save(self, session: dict[str, Any]) -> None:
        self.known[session["sessionId"]] = session
        path = self.state_dir / f"{session['sessionId']}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(session), encoding="utf-8")
        os.replace(tmp, path)

    async def update(self, session_id: str, update: dict[str, Any]) -> None:
        assert self.conn is not None
        await self.conn.send_notification("session/update", {"sessionId": session_id, "update": update})


async def serve_v2(agent: ReferenceAgentV2) -> None:
    reader, writer = await stdio_streams(limit=64 * 1024 * 1024)
    reader = await guard_stdin(reader, writer)
    agent.conn = Connection(agent.handle, writer, reader, listening=False)
    await agent.conn.main_loop()


def main_v2(
    state_dir: Path | None,
    revision: str | None,
    agent_class: type[ReferenceAgentV2] | None = None,
    policy: Policy | None = None,
) -> None:
    cls = agent_class or ReferenceAgentV2
    if revision:
        cls = type(cls.__name__, (cls,), {"words": dict(REVISION_WORDS[revision])})
    if policy is not None and policy != Policy():
        cls = type(cls.__name__, (cls,), {"policy": policy})
    agent = cls(state_dir or Path.cwd() / (STATE_DIR + "-v2"))
    asyncio.run(serve_v2(agent))

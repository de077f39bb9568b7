"""Runs of the HTTP reference service (:mod:`conformance.reference.http.service`).

:class:`Runs` is a mixin of :class:`~conformance.reference.http.service.ReferenceService`: the chat
endpoint, persisting inputs (messages, confirm and external results), the background run holding
the session's lease, and the streamed calls to the session's model. It relies on the service's
state and rules (``owned``, the lease methods, ``touch``, ``last_reply``, ``pending_calls``).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import HTTPException
from fastapi.responses import JSONResponse, Response

from .models import (
    EXTERNAL_TOOL,
    PERMISSION_TOOL,
    TOOLS,
    Agent,
    BadInput,
    ChatRequest,
    Credential,
    ModelError,
    Session,
    _loads,
    new_id,
    now_iso,
)


class Runs:
    """The run machinery; mixed into ReferenceService, which provides the state below."""

    credentials: dict[str, Credential]
    agents: dict[str, Agent]
    runs: dict[str, asyncio.Task[None]]
    client: Any  # httpx.AsyncClient
    lease_ttl: float
    max_iters: int
    owned: Any
    acquire_lease: Any
    renew_lease: Any
    release_lease: Any
    touch: Any
    last_reply: Any
    pending_calls: Any
    use: Any
    emit: Any

    # -- runs ----------------------------------------------------------------------------------

    async def chat(self, user_id: str, request: ChatRequest) -> Response:
        session = self.owned(user_id, request.agent_id, request.session_id)
        self.use(session)
        token = self.acquire_lease(session.id)
        if token is None:
            raise HTTPException(
                409, f"Session '{session.id}' already has an active chat run in this process."
            )
        try:
            self.apply_input(session, request.input)
        except BaseException as exc:  # any failure: no lease left behind to read running with no run
            self.release_lease(session.id, token)
            raise (HTTPException(400, str(exc)) if isinstance(exc, BadInput) else exc) from None
        self.touch(session)
        self.runs[session.id] = asyncio.create_task(self.run(session, token))
        return JSONResponse({"status": "started", "session_id": session.id})

    def apply_input(self, session: Session, data: Any) -> None:
        """Persist the input: user message(s), or the answers a parked turn waits for."""
        if data is None:
            return
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "USER_CONFIRM_RESULT":
            self.apply_confirm(session, data)
        elif kind == "EXTERNAL_EXECUTION_RESULT":
            self.apply_external(session, data)
        else:
            for msg in data if isinstance(data, list) else [data]:
                session.messages.append(self.user_message(msg))

    def user_message(self, msg: Any) -> dict[str, Any]:
        if not isinstance(msg, dict) or "content" not in msg:
            raise BadInput("input is not a Msg, a list of Msg, or a result event")
        content = msg["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            raise BadInput("Msg.content is neither a string nor a list of blocks")
        return {
            "id": msg.get("id") or new_id(),
            "name": msg.get("name") or "user",
            "role": msg.get("role") or "user",
            "content": content,
            "metadata": msg.get("metadata") or {},
            "created_at": now_iso(),
        }

    def _parked_reply(self, session: Session, reply_id: Any) -> dict[str, Any]:
        reply = self.last_reply(session)
        if reply is None or not self.pending_calls(session):
            raise BadInput("the session is not waiting for any tool call")
        if reply_id != reply.get("id"):
            raise BadInput(f"reply_id {reply_id!r} is not the reply waiting for results")
        return reply

    def apply_confirm(self, session: Session, event: dict[str, Any]) -> None:
        reply = self._parked_reply(session, event.get("reply_id"))
        asking = _calls_in_state(reply, "asking")
        results = event.get("confirm_results") or []
        for result in results:
            call_id: Any = ((result or {}).get("tool_call") or {}).get("id")  # whatever the client sent
            call = asking.get(call_id)
            if call is None:
                raise BadInput("a confirm result names no tool call waiting for permission")
        for result in results:
            call = asking[result["tool_call"]["id"]]
            call["state"] = "finished"
            call["finished_at"] = now_iso()
            if result.get("confirmed"):
                args = _loads(call.get("input"))
                output = f"Wrote {len(str(args.get('content', '')))} bytes to {args.get('file_path', '?')}."
                reply["content"].append(self.tool_result(call, output, "success"))
            else:
                reply["content"].append(self.tool_result(call, "The user denied this tool call.", "denied"))

    def apply_external(self, session: Session, event: dict[str, Any]) -> None:
        reply = self._parked_reply(session, event.get("reply_id"))
        submitted = _calls_in_state(reply, "submitted")
        results = event.get("execution_results") or []
        if any((r or {}).get("id") not in submitted for r in results):
            raise BadInput("an execution result names no tool call waiting for an external executor")
        for result in results:
            call = submitted[result["id"]]
            call["state"] = "finished"
            call["finished_at"] = now_iso()
            block = self.tool_result(call, result.get("output", ""), result.get("state") or "success")
            block["metadata"] = result.get("metadata") or {}
            reply["content"].append(block)

    def tool_result(self, call: dict[str, Any], output: Any, state: str) -> dict[str, Any]:
        return {
            "type": "tool_result",
            "id": call["id"],
            "name": call["name"],
            "output": output,
            "state": state,
            "metadata": {},
            "created_at": now_iso(),
            "finished_at": now_iso(),
        }

    async def run(self, session: Session, token: str) -> None:
        """The background run: holds (and renews) the lease until the turn ends or parks."""
        renewer = asyncio.create_task(self._renew(session.id, token))
        self.emit(session, "run_started")
        try:
            await self.agent_loop(session)
        except asyncio.CancelledError:
            self.finish_reply(session, "interrupted")
        except Exception as exc:  # the model failed: the turn ends with an error
            reply = self.open_reply(session)
            reply["error"] = {"type": type(exc).__name__, "message": str(exc)[:500]}
            self.finish_reply(session, "error")
        finally:
            renewer.cancel()
            self.touch(session)
            self.emit(session, "run_ended")
            self.release_lease(session.id, token)
            if self.runs.get(session.id) is asyncio.current_task():
                del self.runs[session.id]

    async def _renew(self, session_id: str, token: str) -> None:
        while True:
            await asyncio.sleep(self.lease_ttl / 3)
            self.renew_lease(session_id, token)

    async def agent_loop(self, session: Session) -> None:
        for _ in range(self.max_iters):
            if self.pending_calls(session):
                return  # still parked: nothing to do until every call has its answer
            text, calls = await self.call_model(session)
            reply = self.open_reply(session)
            if text:
                reply["content"].append(
                    {"type": "text", "text": text, "id": new_id(), "created_at": now_iso()}
                )
            if not calls:
                self.finish_reply(session, "completed")
                return
            for call in calls:
                block = {
                    "type": "tool_call",
                    "id": call["id"] or f"call_{new_id()[:12]}",
                    "name": call["name"],
                    "input": call["arguments"] or "{}",
                    "state": "pending",
                    "suggested_rules": [],
                    "created_at": now_iso(),
                    "finished_at": None,
                }
                reply["content"].append(block)
                if self.needs_permission(call["name"]):
                    block["state"] = "asking"
                elif call["name"] == EXTERNAL_TOOL:
                    block["state"] = "submitted"
                else:
                    block["state"] = "finished"
                    reply["content"].append(self.run_tool(block))
            self.touch(session)
        self.finish_reply(session, "exceed_max_iters")

    def needs_permission(self, tool: str) -> bool:
        """Whether a call of ``tool`` waits for the user's permission (the turn parks)."""
        return tool == PERMISSION_TOOL

    def run_tool(self, call: dict[str, Any]) -> dict[str, Any]:
        """The result of a call run at once (Write is simulated: nothing is written)."""
        if call["name"] == PERMISSION_TOOL:
            args = _loads(call.get("input"))
            output = f"Wrote {len(str(args.get('content', '')))} bytes to {args.get('file_path', '?')}."
            return self.tool_result(call, output, "success")
        return self.tool_result(call, f"Unknown tool {call['name']!r}.", "error")

    def open_reply(self, session: Session) -> dict[str, Any]:
        """The unfinished assistant reply at the tail, or a new one."""
        reply = session.messages[-1] if session.messages else None
        if reply is None or reply.get("role") != "assistant" or reply.get("finished_at"):
            agent = self.agents.get(session.agent_id)
            reply = {
                "id": new_id(),
                "name": agent.name if agent else "assistant",
                "role": "assistant",
                "content": [],
                "metadata": {},
                "created_at": now_iso(),
                "finished_at": None,
                "finished_reason": None,
            }
            session.messages.append(reply)
        return reply

    def finish_reply(self, session: Session, reason: str) -> None:
        reply = session.messages[-1] if session.messages else None
        if reason == "interrupted":
            reply = self.open_reply(session)
            for call in [b for b in reply["content"] if b.get("type") == "tool_call"]:
                if call.get("state") in ("pending", "asking", "submitted"):
                    call["state"] = "finished"
                    reply["content"].append(self.tool_result(call, "Interrupted.", "interrupted"))
        if reply is not None and reply.get("role") == "assistant" and not reply.get("finished_at"):
            reply["finished_at"] = now_iso()
            reply["finished_reason"] = reason

    async def interrupt(self, session: Session) -> None:
        task = self.runs.get(session.id)
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        elif self.pending_calls(session):
            self.finish_reply(session, "interrupted")
            self.touch(session)

    # -- the model -----------------------------------------------------------------------------

    def openai_messages(self, session: Session) -> list[dict[str, Any]]:
        agent = self.agents.get(session.agent_id)
        out: list[dict[str, Any]] = [{"role": "system", "content": agent.system_prompt if agent else ""}]
        for message in session.messages:
            blocks = message.get("content") or []
            if message.get("role") != "assistant":
                text = " ".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
                out.append({"role": message.get("role") or "user", "content": text})
                continue
            pending: dict[str, Any] = {"role": "assistant", "content": None}
            for block in blocks:
                if block.get("type") == "text":
                    text = str(block.get("text", ""))
                    pending["content"] = f"{pending['content']} {text}" if pending["content"] else text
                elif block.get("type") == "tool_call":
                    function = {"name": block["name"], "arguments": block.get("input") or "{}"}
                    call = {"id": block["id"], "type": "function", "function": function}
                    pending.setdefault("tool_calls", []).append(call)
                elif block.get("type") == "tool_result":
                    if pending["content"] or pending.get("tool_calls"):
                        out.append(pending)
                    pending = {"role": "assistant", "content": None}
                    output = block.get("output")
                    content = output if isinstance(output, str) else json.dumps(output)
                    out.append({"role": "tool", "tool_call_id": block["id"], "content": content})
            if pending["content"] or pending.get("tool_calls"):
                out.append(pending)
        return out

    async def call_model(self, session: Session) -> tuple[str, list[dict[str, str]]]:
        """One streamed chat completion: (text, tool calls as {id, name, arguments})."""
        config = session.chat_model_config
        if config is None:
            raise ModelError("the session has no chat_model_config")
        credential = self.credentials.get(config["credential_id"])
        if credential is None:
            raise ModelError(f"credential {config['credential_id']!r} is gone")
        url = credential.data["base_url"].rstrip("/") + "/chat/completions"
        payload = {
            **(config.get("parameters") or {}),
            "model": config["model"],
            "messages": self.openai_messages(session),
            "tools": TOOLS,
            "stream": True,
        }
        headers = {"authorization": f"Bearer {credential.data.get('api_key', '')}"}
        text: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        async with self.client.stream("POST", url, json=payload, headers=headers) as response:
            if response.status_code >= 400:
                body = (await response.aread()).decode("utf-8", "replace")
                raise ModelError(f"the model answered HTTP {response.status_code}: {body[:300]}")
            async for line in response.aiter_lines():
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                for choice in json.loads(data).get("choices") or []:
                    delta = choice.get("delta") or {}
                    if delta.get("content"):
                        text.append(delta["content"])
                    for part in delta.get("tool_calls") or []:
                        slot = calls.setdefault(part.get("index", 0), {"id": "", "name": "", "arguments": ""})
                        function = part.get("function") or {}
                        slot["id"] = part.get("id") or slot["id"]
                        slot["name"] = function.get("name") or slot["name"]
                        slot["arguments"] += function.get("arguments") or ""
        return "".join(text).strip(), [calls[i] for i in sorted(calls)]


def _calls_in_state(reply: dict[str, Any], state: str) -> dict[str, dict[str, Any]]:
    """The reply's tool calls in one state (asking: for permission; submitted: to an executor), by id."""
    return {b["id"]: b for b in reply["content"] if b.get("type") == "tool_call" and b.get("state") == state}

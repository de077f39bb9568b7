"""Driver for an AgentScope 2.x service's public HTTP API, as used by the session-status cases.

Everything goes through the service's own endpoints: a credential (`POST /credential/`, type
`openai_credential`, `base_url` = the fake model), an agent (`POST /agent/`), a session whose
`chat_model_config` names that credential (`POST /sessions/`), and runs started with the
fire-and-forget `POST /chat/` (it answers `{"status": "started"}` at once; events go to
`GET /sessions/{id}/stream`, which this driver does not read). The caller's identity is the
`x-user-id` header. Every exchange is kept in `transcript` as a plain dict.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any
from urllib.parse import quote

import httpx

from conformance.transport.http_clients import KEEPALIVE_EXPIRY, tls_context

__all__ = ["STATUSES", "STATUS_OPERATION_ID", "AgentScopeDriver"]

STATUS_OPERATION_ID = "get_session_status_sessions__session_id__status_get"
STATUSES = ("running", "idle", "awaiting_permission", "awaiting_external_result")
_SECRET_HEADERS = {"authorization", "cookie", "x-api-key", "api-key"}
_MAX_BODY = 4000
_OMIT: Any = object()  # "leave this out of the request", distinct from None


class Refused(AssertionError):
    """A setup request the service refused (the suite cannot go on as planned), with its code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class AgentScopeDriver:
    def __init__(self, base_url: str, *, timeout: float = 15.0, model_name: str = "fake-model") -> None:
        self.base_url = base_url.rstrip("/")
        self.model_name = model_name
        limits = httpx.Limits(keepalive_expiry=KEEPALIVE_EXPIRY)
        self.client = httpx.AsyncClient(
            base_url=self.base_url, timeout=timeout, limits=limits, verify=tls_context()
        )
        self.transcript: list[dict[str, Any]] = []
        self._model_config: dict[str, dict[str, Any]] = {}  # agent id -> its sessions' chat_model_config

    async def aclose(self) -> None:
        await self.client.aclose()

    def adopt(self, before: AgentScopeDriver) -> None:
        """Take over what the driver of the same service before a restart knew: the model its
        agents' sessions are configured with."""
        self._model_config.update(before._model_config)

    async def __aenter__(self) -> AgentScopeDriver:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- recognising the service -------------------------------------------------------------

    @staticmethod
    def recognise(openapi: dict[str, Any]) -> bool:
        """True when the OpenAPI document is an AgentScope service's (title, or the status op)."""
        paths = openapi.get("paths") or {}
        op_ids = {
            op.get("operationId")
            for item in paths.values()
            if isinstance(item, dict)
            for op in item.values()
            if isinstance(op, dict)
        }
        titled = (openapi.get("info") or {}).get("title") == "AgentScope"
        return "/sessions/{session_id}/status" in paths and (titled or STATUS_OPERATION_ID in op_ids)

    async def openapi(self) -> dict[str, Any]:
        return (await self.request("GET", "/openapi.json", record_body=False)).json()

    # -- raw requests ------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        *,
        user_id: str | None = None,
        params: dict[str, Any] | None = None,
        json: Any = _OMIT,
        headers: dict[str, str] | None = None,
        record_body: bool = True,
    ) -> httpx.Response:
        """One request; `user_id` None sends no `x-user-id` (headers may still carry one).

        A GET whose reused connection the server had closed (it answers nothing: a read error or
        a protocol error before any byte) is sent once more on a new connection, as browsers and
        HTTP clients do for idempotent requests; both attempts are in the transcript."""
        try:
            return await self._send(method, path, user_id, params, json, headers, record_body)
        except (httpx.ReadError, httpx.RemoteProtocolError):
            if method != "GET":
                raise
            return await self._send(method, path, user_id, params, json, headers, record_body)

    async def _send(
        self,
        method: str,
        path: str,
        user_id: str | None,
        params: dict[str, Any] | None,
        json: Any,
        headers: dict[str, str] | None,
        record_body: bool,
    ) -> httpx.Response:
        sent = dict(headers or {})
        if user_id is not None:
            sent["x-user-id"] = user_id
        # A header value outside ASCII (a caller id with unicode) goes out as its UTF-8 bytes.
        wire = {k: v if v.isascii() else v.encode() for k, v in sent.items()}
        kwargs: dict[str, Any] = {"params": params, "headers": wire}
        if json is not _OMIT:
            kwargs["json"] = json
        entry: dict[str, Any] = {
            "method": method,
            "url": str(self.client.build_request(method, path, params=params).url),
            "headers": {k: ("<redacted>" if k.lower() in _SECRET_HEADERS else v) for k, v in sent.items()},
            "request_body": _redact(json) if json is not _OMIT else None,
            "started": time.time(),
        }
        self.transcript.append(entry)
        try:
            response = await self.client.request(method, path, **kwargs)
        except BaseException as exc:  # cancelled or transport error: still shown
            entry.update(status_code=None, response_body=f"<{type(exc).__name__}: {exc}>")
            raise
        entry["status_code"] = response.status_code
        entry["elapsed_ms"] = round(response.elapsed.total_seconds() * 1000, 1)
        entry["response_body"] = (
            response.text[:_MAX_BODY] if record_body else f"<{len(response.content)} bytes>"
        )
        return response

    async def _ok(self, response: httpx.Response, *codes: int) -> dict[str, Any]:
        if response.status_code not in (codes or (200, 201)):
            raise Refused(
                f"{response.request.method} {response.request.url.path} -> {response.status_code}: "
                f"{response.text[:500]}",
                response.status_code,
            )
        return response.json() if response.content else {}

    # -- setting up --------------------------------------------------------------------------

    async def create_credential(
        self, user_id: str, model_base_url: str, api_key: str = "sk-conformance"
    ) -> str:
        data = {"type": "openai_credential", "api_key": api_key, "base_url": model_base_url}
        body = await self._ok(
            await self.request("POST", "/credential/", user_id=user_id, json={"data": data})
        )
        return body["credential_id"]

    async def create_agent(self, user_id: str, model_base_url: str, *, name: str | None = None) -> str:
        """A credential for the model plus an agent; the agent's sessions will use that model."""
        credential_id = await self.create_credential(user_id, model_base_url)
        payload = {"name": name or f"conformance-{uuid.uuid4().hex[:8]}", "system_prompt": "You are a probe."}
        body = await self._ok(await self.request("POST", "/agent/", user_id=user_id, json=payload))
        agent_id = body["agent_id"]
        self._model_config[agent_id] = {
            "type": "openai_credential",
            "credential_id": credential_id,
            "model": self.model_name,
            "model_class": "openai_chat",
            "parameters": {},
        }
        return agent_id

    async def create_session(
        self, user_id: str, agent_id: str, *, name: str | None = None, options: dict[str, Any] | None = None
    ) -> str:
        """A new session; ``options``: optional body fields the service documents (the driver's own win)."""
        payload: dict[str, Any] = {
            **(options or {}),
            "agent_id": agent_id,
            "chat_model_config": self._model_config.get(agent_id),
        }
        if name is not None:
            payload["name"] = name  # a named session skips the server's auto-naming model call
        body = await self._ok(await self.request("POST", "/sessions/", user_id=user_id, json=payload), 201)
        return body["session_id"]

    # -- runs --------------------------------------------------------------------------------

    async def start_chat(self, user_id: str, agent_id: str, session_id: str, text: str) -> httpx.Response:
        """POST /chat/ with one user message; the service answers before the run ends."""
        msg = {"name": "user", "role": "user", "content": [{"type": "text", "text": text}]}
        payload = {"agent_id": agent_id, "session_id": session_id, "input": msg}
        return await self.request("POST", "/chat/", user_id=user_id, json=payload)

    async def post_input(
        self, user_id: str, agent_id: str, session_id: str, input_: dict[str, Any] | list[Any]
    ) -> httpx.Response:
        """POST /chat/ with the given input (a Msg, a list of them, or a result event)."""
        payload = {"agent_id": agent_id, "session_id": session_id, "input": input_}
        return await self.request("POST", "/chat/", user_id=user_id, json=payload)

    async def pending_tool_calls(
        self, user_id: str, agent_id: str, session_id: str
    ) -> tuple[str, list[dict]]:
        """(reply id, tool calls in state asking/submitted) of the last assistant message."""
        body = await self._ok(await self.messages(user_id, agent_id, session_id))
        for msg in reversed(body.get("messages") or []):
            if msg.get("role") == "assistant":
                calls = [
                    b
                    for b in msg.get("content") or []
                    if b.get("type") == "tool_call" and b.get("state") in ("asking", "submitted")
                ]
                return msg.get("id", ""), calls
        return "", []

    async def confirm(
        self, user_id: str, agent_id: str, session_id: str, *, allow: bool = True
    ) -> httpx.Response:
        """Answer every tool call awaiting permission (a UserConfirmResultEvent through /chat/)."""
        reply_id, calls = await self.pending_tool_calls(user_id, agent_id, session_id)
        results = [{"confirmed": allow, "tool_call": c} for c in calls if c.get("state") == "asking"]
        event = {"type": "USER_CONFIRM_RESULT", "reply_id": reply_id, "confirm_results": results}
        payload = {"agent_id": agent_id, "session_id": session_id, "input": event}
        return await self.request("POST", "/chat/", user_id=user_id, json=payload)

    async def submit_external_result(
        self, user_id: str, agent_id: str, session_id: str, output: str = "First"
    ) -> httpx.Response:
        """Give every submitted (external) tool call a result (an ExternalExecutionResultEvent).

        AgentScope validates the result's `metadata` against the tool's `metadata_schema`; for
        `AskUser` that is `{"answers": [{"question": ..., "selected": [...]}]}`: the first option.
        """
        reply_id, calls = await self.pending_tool_calls(user_id, agent_id, session_id)
        results = [
            {
                "type": "tool_result",
                "id": c["id"],
                "name": c["name"],
                "output": output,
                "state": "success",
                "metadata": _ask_user_answers(c),
            }
            for c in calls
            if c.get("state") == "submitted"
        ]
        event = {"type": "EXTERNAL_EXECUTION_RESULT", "reply_id": reply_id, "execution_results": results}
        payload = {"agent_id": agent_id, "session_id": session_id, "input": event}
        return await self.request("POST", "/chat/", user_id=user_id, json=payload)

    async def interrupt(self, user_id: str, agent_id: str, session_id: str) -> httpx.Response:
        params = {"agent_id": agent_id}
        return await self.request(
            "POST", f"/sessions/{segment(session_id)}/interrupt", user_id=user_id, params=params
        )

    async def delete_session(self, user_id: str, agent_id: str, session_id: str) -> httpx.Response:
        params = {"agent_id": agent_id}
        return await self.request(
            "DELETE", f"/sessions/{segment(session_id)}", user_id=user_id, params=params
        )

    # -- reading -----------------------------------------------------------------------------

    async def status(
        self,
        user_id: str | None,
        agent_id: str | None,
        session_id: str,
        *,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        """GET /sessions/{id}/status; None leaves out the x-user-id header or the agent_id query."""
        params = {"agent_id": agent_id} if agent_id is not None else None
        return await self.request(
            "GET", f"/sessions/{segment(session_id)}/status", user_id=user_id, params=params, headers=headers
        )

    async def messages(
        self, user_id: str, agent_id: str, session_id: str, limit: int = 200
    ) -> httpx.Response:
        params = {"agent_id": agent_id, "limit": limit}
        return await self.request(
            "GET", f"/sessions/{segment(session_id)}/messages", user_id=user_id, params=params
        )

    async def list_sessions(self, user_id: str, agent_id: str) -> httpx.Response:
        return await self.request("GET", "/sessions/", user_id=user_id, params={"agent_id": agent_id})


def segment(session_id: str) -> str:
    """A session id as one path segment: percent-encoded (``/``, ``?``, spaces, unicode), and the
    dot segments ``.`` and ``..`` encoded too, so no client or server resolves them as a path."""
    if session_id in (".", ".."):
        return session_id.replace(".", "%2E")
    return quote(session_id, safe="")


def _ask_user_answers(call: dict[str, Any]) -> dict[str, Any]:
    """Metadata answering an AskUser call with each question's first option ({} for other tools)."""
    if call.get("name") != "AskUser":
        return {}
    try:
        questions = json.loads(call.get("input") or "{}").get("questions") or []
    except ValueError:
        questions = []
    return {
        "answers": [
            {"question": q.get("question", ""), "selected": [q["options"][0]["label"]]}
            for q in questions
            if q.get("options")
        ]
    }


def _redact(body: Any) -> Any:
    """A copy of a request body without API keys."""
    if isinstance(body, dict):
        return {
            k: ("<redacted>" if k in ("api_key", "password", "token") else _redact(v))
            for k, v in body.items()
        }
    if isinstance(body, list):
        return [_redact(v) for v in body]
    return body

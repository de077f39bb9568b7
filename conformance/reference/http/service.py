"""Reference service for AgentScope 2.0.4's `GET /sessions/{session_id}/status`.

A small FastAPI app: the status route exactly as the spec describes it, plus the part of
AgentScope's public API that :class:`conformance.targets.http.agentscope.AgentScopeDriver` uses (same
paths, request and response shapes), so one driver drives both. Everything lives in memory and
is scoped to the ``x-user-id`` owner.

A run (``POST /chat/``) is a background task holding the session's run lease (TTL ``lease_ttl``,
renewed while the run works, released when it ends). It streams the session's model
(``{base_url}/chat/completions``, OpenAI-compatible) with two tools: ``Write`` needs the user's
permission (the turn parks awaiting_permission), ``AskUser`` is run by an external executor (the
turn parks awaiting_external_result). Resuming (``USER_CONFIRM_RESULT`` /
``EXTERNAL_EXECUTION_RESULT`` inputs) appends the tool results and calls the model again. ``Write``
is simulated: nothing is written.

Status: ``running`` while the lease is held (decided first), else ``awaiting_permission`` /
``awaiting_external_result`` from the persisted tail, else ``idle``. 404 with one body for an
unknown id, another user's session and a wrong ``agent_id``, in every state.

Every rule is a method of :class:`ReferenceService`, so a broken variant overrides one of them
(see tests/agents/http/). The run machinery (chat, inputs, the background run, the model calls)
is the :class:`~conformance.reference.http.runs.Runs` mixin in :mod:`.http_runs`; constants,
helpers, request/response models and the in-memory state live in :mod:`.http_models`.

Run: python -m conformance.reference.http.service --listen 127.0.0.1:0
(prints ``listening on http://127.0.0.1:<port>`` on stdout once it listens)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
from fastapi import Depends, FastAPI, Header, HTTPException, Query, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.types import ASGIApp

# Run as a file (python conformance/reference/http/service.py): import it as the package it is in.
if not __package__:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # pragma: no mutate (run as a file)
    __package__ = "conformance.reference.http"

from .machinery import Machinery
from .models import (
    USER_HEADER,
    Agent,
    ChatRequest,
    CreateAgentRequest,
    CreateCredentialRequest,
    CreateSessionRequest,
    Credential,
    Lease,
    Session,
    SessionStatus,
    SessionStatusResponse,
    new_id,
    now_iso,
)
from .runs import Runs
from .serving import serve_asgi

__all__ = ["ReferenceService", "Session", "create_app", "main", "serve"]

# -- the service ----------------------------------------------------------------------------------


class ReferenceService(Runs, Machinery):
    """The in-memory service; each rule is a method a broken variant may override. The
    machinery a deployment has (a memory cap, idle eviction, request limits, length limits,
    bounded concurrency, a store that outlives a restart) is off unless configured."""

    lease_ttl = 10.0  # seconds; renewed every lease_ttl / 3 while a run works
    max_iters = 5  # model calls per run

    def __init__(self) -> None:
        self.credentials: dict[str, Credential] = {}
        self.agents: dict[str, Agent] = {}
        self.sessions: dict[str, Session] = {}
        self.leases: dict[str, Lease] = {}
        self.runs: dict[str, asyncio.Task[None]] = {}
        self._client: httpx.AsyncClient | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=5.0))
        return self._client

    async def aclose(self) -> None:
        for task in list(self.runs.values()):
            task.cancel()
        await asyncio.gather(*self.runs.values(), return_exceptions=True)
        if self._client is not None:
            await self._client.aclose()

    # -- the run lease -------------------------------------------------------------------------

    def lease_held(self, session_id: str) -> bool:
        lease = self.leases.get(session_id)
        return lease is not None and lease.expires_at > time.monotonic()

    def acquire_lease(self, session_id: str, ttl: float | None = None) -> str | None:
        """A token, or None when another holder's lease has not expired."""
        if self.lease_held(session_id):
            return None
        token = new_id()
        self.leases[session_id] = Lease(token, time.monotonic() + (ttl or self.lease_ttl))
        return token

    def renew_lease(self, session_id: str, token: str) -> None:
        lease = self.leases.get(session_id)
        if lease is not None and lease.token == token:
            lease.expires_at = time.monotonic() + self.lease_ttl

    def release_lease(self, session_id: str, token: str) -> None:
        lease = self.leases.get(session_id)
        if lease is not None and lease.token == token:
            del self.leases[session_id]

    # -- ownership -----------------------------------------------------------------------------

    def identify(self, x_user_id: str) -> str:
        """The caller, from the x-user-id header (trusted, not authenticated); every route asks."""
        if not x_user_id:
            raise HTTPException(401, "X-User-ID header is required.")
        self.check_length(x_user_id, ["header", "x-user-id"])
        return x_user_id

    def find(self, session_id: str) -> Session | None:
        """The session with this id, as every route looks it up (ids compare exactly)."""
        return self.sessions.get(session_id)

    def lookup(self, user_id: str, agent_id: str, session_id: str) -> tuple[Session | None, str]:
        """(session, verdict): verdict is ok, unknown, other_user or wrong_agent."""
        self.check_length(session_id, ["path", "session_id"])
        self.check_length(agent_id, ["query", "agent_id"])
        session = self.find(session_id)
        if session is None:
            return None, "unknown"
        if session.user_id != user_id:
            return session, "other_user"
        if session.agent_id != agent_id:
            return session, "wrong_agent"
        return session, "ok"

    def owned(self, user_id: str, agent_id: str, session_id: str) -> Session:
        """The caller's session, or the one 404 every endpoint answers; a request of its allowance
        (every route but the status asks this)."""
        session, verdict = self.lookup(user_id, agent_id, session_id)
        if session is None or verdict != "ok":
            raise HTTPException(404, f"Session '{session_id}' not found.")
        self.spend(session.id)
        return session

    async def delete(self, user_id: str, agent_id: str, session_id: str) -> None:
        """DELETE /sessions/{id}: stop its run (releasing the lease), then forget it."""
        session = self.owned(user_id, agent_id, session_id)
        await self.interrupt(session)
        self.sessions.pop(session.id, None)
        self.evict(session.id)

    # -- the status ----------------------------------------------------------------------------

    async def session_status(self, user_id: str, agent_id: str, session_id: str) -> Response:
        """The status route: ownership first, then the derived status; changes nothing."""
        session, verdict = self.lookup(user_id, agent_id, session_id)
        if session is None or verdict != "ok":
            return self.status_refusal(session_id, verdict, session, user_id=user_id, agent_id=agent_id)
        return self.status_body(session, session_id, self.derive_status(session))

    def status_refusal(
        self, session_id: str, verdict: str, session: Session | None, *, user_id: str, agent_id: str
    ) -> Response:
        """The answer when the session is not the caller's: one 404 for every reason."""
        return self.not_found(session_id)

    def not_found(self, session_id: str) -> Response:
        return JSONResponse({"detail": f"Session '{session_id}' not found."}, status_code=404)

    def status_body(self, session: Session | None, session_id: str, status: str) -> Response:
        return JSONResponse({"session_id": session_id, "status": status})

    def revalidated(self, request: Request, response: Response) -> Response:
        """A 200 carries a strong ETag of its own bytes (RFC 9110 8.8.3), so a client's cache
        revalidates it; If-None-Match naming it (weak comparison, RFC 9110 13.1.2) is 304."""
        if response.status_code != 200:
            return response
        etag = '"' + hashlib.sha256(bytes(response.body)).hexdigest()[:32] + '"'
        response.headers["etag"] = etag
        if matches(request.headers.get("if-none-match"), etag):
            return Response(status_code=304, headers={"etag": etag})
        return response

    def derive_status(self, session: Session) -> str:
        """RUNNING from the lease first; only without a holder does the persisted tail count."""
        if self.lease_held(session.id):
            return SessionStatus.RUNNING.value
        return self.parked_status(session) or SessionStatus.IDLE.value

    def parked_status(self, session: Session) -> str | None:
        """awaiting_permission / awaiting_external_result from the persisted tail, or None."""
        states = {call.get("state") for call in self.pending_calls(session)}
        if "asking" in states:
            return SessionStatus.AWAITING_PERMISSION.value
        if "submitted" in states:
            return SessionStatus.AWAITING_EXTERNAL_RESULT.value
        return None

    def last_reply(self, session: Session) -> dict[str, Any] | None:
        for message in reversed(session.messages):
            if message.get("role") == "assistant":
                return message
        return None

    def pending_calls(self, session: Session) -> list[dict[str, Any]]:
        """Tool calls of the tail reply still waiting: for permission (asking) or a result (submitted)."""
        reply = self.last_reply(session)
        if reply is None:
            return []
        return [
            b
            for b in reply.get("content") or []
            if b.get("type") == "tool_call" and b.get("state") in ("asking", "submitted")
        ]

    # -- validation errors ---------------------------------------------------------------------

    async def validation_error(self, request: Request, exc: RequestValidationError) -> Response:
        """FastAPI's own 422 HTTPValidationError."""
        return await request_validation_exception_handler(request, exc)

    # -- setting up ----------------------------------------------------------------------------

    def touch(self, session: Session) -> None:
        session.updated_at = now_iso()

    def create_credential(self, user_id: str, data: dict[str, Any]) -> str:
        if data.get("type") != "openai_credential" or not isinstance(data.get("base_url"), str):
            raise HTTPException(422, "only an openai_credential with a base_url is supported")
        credential = Credential(new_id(), user_id, dict(data))
        self.credentials[credential.id] = credential
        return credential.id

    def create_agent(self, user_id: str, request: CreateAgentRequest) -> str:
        agent = Agent(new_id(), user_id, request.name, request.system_prompt)
        self.agents[agent.id] = agent
        return agent.id

    def create_session(
        self, user_id: str, request: CreateSessionRequest, session_id: str | None = None
    ) -> str:
        self.check_length(request.agent_id, ["body", "agent_id"])
        agent = self.agents.get(request.agent_id)
        if agent is None or agent.user_id != user_id:
            raise HTTPException(404, f"Agent '{request.agent_id}' not found.")
        config = request.chat_model_config
        if config is not None:
            credential = self.credentials.get(config.credential_id)
            if credential is None or credential.user_id != user_id:
                raise HTTPException(404, f"Credential '{config.credential_id}' not found.")
        session = Session(
            id=session_id or new_id(),
            user_id=user_id,
            agent_id=agent.id,
            name=request.name or "New session",
            workspace_id=request.workspace_id or "default",
            chat_model_config=config.model_dump() if config is not None else None,
        )
        self.sessions[session.id] = session
        self.use(session)
        return session.id

    def session_view(self, session: Session) -> dict[str, Any]:
        record = {
            "id": session.id,
            "created_at": session.created_at,
            "updated_at": session.updated_at,
            "user_id": session.user_id,
            "agent_id": session.agent_id,
            "config": {
                "workspace_id": session.workspace_id,
                "name": session.name,
                "chat_model_config": session.chat_model_config,
            },
        }
        return {
            "session": record,
            "is_running": self.lease_held(session.id),
            "status": self.derive_status(session),
        }

    def listing(self, user_id: str, agent_id: str) -> dict[str, Any]:
        """GET /sessions/: the caller's sessions of the agent, most recently updated first."""
        mine = [s for s in self.sessions.values() if s.user_id == user_id and s.agent_id == agent_id]
        mine.sort(key=lambda s: s.updated_at, reverse=True)
        return {"sessions": [self.session_view(s) for s in mine], "total": len(mine)}

    def messages_page(self, session: Session, before: str | None, offset: int, limit: int) -> dict[str, Any]:
        """GET /sessions/{id}/messages: a page of the session's messages, oldest first."""
        messages = session.messages
        if before is not None:
            ids = [m.get("id") for m in messages]
            messages = messages[: ids.index(before)] if before in ids else messages
        end = max(0, len(messages) - offset)
        start = max(0, end - limit)
        return {
            "messages": messages[start:end],
            "event_cursor": self.event_cursor(session),
            "is_running": self.lease_held(session.id),
            "has_more": start > 0,
        }


def matches(if_none_match: str | None, etag: str) -> bool:
    """Whether an If-None-Match value names ``etag``: ``*``, or a list holding it compared
    weakly (the ``W/`` prefix ignored on both sides, RFC 9110 8.8.3.2)."""
    if if_none_match is None:
        return False
    if if_none_match.strip() == "*":
        return True
    wanted = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == wanted for tag in if_none_match.split(","))


# -- the app --------------------------------------------------------------------------------------


AgentQuery = Query(description="Agent the session belongs to.")


def create_app(service: ReferenceService | None = None) -> FastAPI:
    """The FastAPI app over ``service`` (a fresh :class:`ReferenceService` by default)."""
    svc = service or ReferenceService()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        background = asyncio.create_task(svc.background())
        yield
        background.cancel()
        await asyncio.gather(background, return_exceptions=True)
        await svc.aclose()
        if svc.store_path is not None:
            svc.write_store(svc.store_path)

    app = FastAPI(
        title="AgentScope (conformance reference)",
        version="2.0.4",
        description="In-memory reference for GET /sessions/{session_id}/status and the API that drives it.",
        lifespan=lifespan,
    )
    app.state.service = svc

    def caller(x_user_id: str = Header(description=USER_HEADER)) -> str:
        return svc.identify(x_user_id)

    async def on_validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return await svc.validation_error(request, exc)

    app.add_exception_handler(RequestValidationError, on_validation_error)
    if svc.max_id_length is not None:
        _publish_max_length(app, svc.max_id_length)

    @app.middleware("http")
    async def bounded(request: Request, call_next: Callable[[Request], Any]) -> Response:
        """At most --max-concurrent requests handled at once; the others wait their turn."""
        slots = svc.slots
        if slots is None:
            return await call_next(request)
        async with slots:
            return await call_next(request)

    @app.get(
        "/sessions/{session_id}/status",
        tags=["sessions"],
        summary="Probe the session's high-level status",
        response_model=SessionStatusResponse,
        responses={404: {"description": "Not found"}},
    )
    async def get_session_status(
        request: Request, session_id: str, agent_id: str = AgentQuery, user_id: str = Depends(caller)
    ) -> Response:
        """Return the unified SessionStatus for a session (404 unless it is the caller's)."""
        return svc.revalidated(request, await svc.session_status(user_id, agent_id, session_id))

    @app.post("/credential/", status_code=201, tags=["credential"])
    async def create_credential(
        body: CreateCredentialRequest, user_id: str = Depends(caller)
    ) -> dict[str, str]:
        return {"credential_id": svc.create_credential(user_id, body.data)}

    @app.post("/agent/", status_code=201, tags=["agent"])
    async def create_agent(body: CreateAgentRequest, user_id: str = Depends(caller)) -> dict[str, str]:
        return {"agent_id": svc.create_agent(user_id, body)}

    @app.post("/sessions/", status_code=201, tags=["sessions"])
    async def create_session(body: CreateSessionRequest, user_id: str = Depends(caller)) -> dict[str, str]:
        return {"session_id": svc.create_session(user_id, body)}

    @app.get("/sessions/", tags=["sessions"])
    async def list_sessions(agent_id: str = AgentQuery, user_id: str = Depends(caller)) -> dict[str, Any]:
        return svc.listing(user_id, agent_id)

    @app.delete("/sessions/{session_id}", status_code=204, tags=["sessions"])
    async def delete_session(
        session_id: str, agent_id: str = AgentQuery, user_id: str = Depends(caller)
    ) -> Response:
        await svc.delete(user_id, agent_id, session_id)
        return Response(status_code=204)

    @app.get("/sessions/{session_id}/messages", tags=["sessions"])
    async def list_messages(
        session_id: str,
        agent_id: str = AgentQuery,
        before: str | None = None,
        offset: int = Query(0, ge=0),
        limit: int = Query(50, ge=1, le=1000),
        user_id: str = Depends(caller),
    ) -> dict[str, Any]:
        return svc.messages_page(svc.owned(user_id, agent_id, session_id), before, offset, limit)

    @app.post("/sessions/{session_id}/interrupt", status_code=202, tags=["sessions"])
    async def interrupt_session(
        session_id: str, agent_id: str = AgentQuery, user_id: str = Depends(caller)
    ) -> dict[str, str]:
        session = svc.owned(user_id, agent_id, session_id)
        svc.use(session)
        await svc.interrupt(session)
        return {"session_id": session_id}

    @app.post("/chat/", tags=["chat"])
    async def chat(body: ChatRequest, user_id: str = Depends(caller)) -> Response:
        return await svc.chat(user_id, body)

    return app


def _publish_max_length(app: FastAPI, longest: int) -> None:
    """The OpenAPI document declares the ids' maxLength that --max-id-length enforces (as
    FastAPI's ``max_length=`` would): a 422 for a longer id follows the contract the service
    publishes."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            for item in build().get("paths", {}).values():
                for operation in item.values():
                    for parameter in operation.get("parameters", []):
                        if parameter.get("name") in ("session_id", "agent_id", "x-user-id"):
                            parameter.setdefault("schema", {})["maxLength"] = longest
        return app.openapi_schema or {}

    app.openapi = openapi  # FastAPI's documented way to extend its document


# -- running it -----------------------------------------------------------------------------------


async def serve(app: ASGIApp, host: str, port: int) -> None:
    await serve_asgi(app, host, port, lambda h, p: f"listening on http://{h}:{p}")


def main(
    service_factory: Callable[[], ReferenceService] = ReferenceService, argv: list[str] | None = None
) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--listen", default="127.0.0.1:0", metavar="HOST:PORT", help="port 0 = a free port")
    parser.add_argument(
        "--memory-cap", type=_positive(int), metavar="N", help="at most N sessions loaded (LRU)"
    )
    parser.add_argument(
        "--idle-evict-after", type=_positive(float), metavar="S", help="evict a session unused for S seconds"
    )
    parser.add_argument(
        "--request-limit",
        type=_positive(int),
        metavar="N",
        help="N requests a minute per session (status free)",
    )
    parser.add_argument(
        "--max-id-length", type=_positive(int), metavar="N", help="refuse ids longer than N characters (422)"
    )
    parser.add_argument(
        "--max-concurrent", type=_positive(int), metavar="N", help="N requests handled at once"
    )
    parser.add_argument("--store", metavar="FILE", help="keep sessions in FILE across restarts")
    args = parser.parse_args(argv)
    host, _, port = args.listen.rpartition(":")
    if not host or not port.isdigit():
        parser.error(f"--listen {args.listen!r} is not HOST:PORT")
    service = service_factory()
    service.configure(
        memory_cap=args.memory_cap,
        idle_evict_after=args.idle_evict_after,
        request_limit=args.request_limit,
        max_id_length=args.max_id_length,
        max_concurrent=args.max_concurrent,
        store=args.store,
    )
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(create_app(service), host, int(port)))


def _positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text!r} is not more than 0")
        return value

    parse.__name__ = kind.__name__
    return parse


if __name__ == "__main__":  # pragma: no mutate (run as a file)
    main()

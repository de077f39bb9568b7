"""The HTTP target: a service's `GET /sessions/{session_id}/status` (AgentScope 2.x and alike).

There is no JSON-RPC here: :class:`HttpService` stands where :class:`AgentProcess` stands for
the other targets (it starts the server command, if any, and reads its URL), and
:class:`HttpStatusTarget` speaks plain HTTP. Every exchange goes into the run's transcript as a
``curl`` command (sent) and the status line with the body (received), so a failure's
reproduction is a list of commands a maintainer can paste.

The service is recognised from its OpenAPI document. An AgentScope-compatible API (AgentScope
itself, or the reference service) lets the suite create what it needs (a credential pointing at
a fake OpenAI-compatible model that the suite runs on 127.0.0.1, an agent, sessions) and drive
sessions into each state with ``POST /chat/``. Any other service is probed on the session given
with ``--agent-id`` / ``--session-id``, and cases that need more say so (not testable).
"""

from __future__ import annotations

import collections
import json
import shlex
import uuid
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
import httpx

from .agent_process import _drain, read_url
from .agentscope_api import AgentScopeDriver
from .config import AgentConfig
from .outcomes import AgentExited, HarnessError, MissingInput, NotTestable, Unanswered
from .stdio import StdioProcess
from .transcript import NOTE, RECV, SEND, StderrTail, Transcript

if TYPE_CHECKING:
    from .runtime import Runtime

__all__ = ["HttpService", "HttpStatusTarget", "StatusProbe"]

STATUS_PATH = "/sessions/{session_id}/status"
MAX_BODY = 4000


class _NoPeer:
    """What the runtime asks of a peer, for a target without JSON-RPC."""

    def __init__(self) -> None:
        self.exited: AgentExited | None = None
        self.problems: list[Any] = []
        self.reported = 0
        self.answered: collections.Counter[str] = collections.Counter()  # status probes answered, this case

    def new_case(self) -> None:
        self.answered.clear()


class HttpService:
    """The service under test: a server command that prints its URL, or a URL already listening."""

    def __init__(self, config: AgentConfig, transcript: Transcript, stderr: StderrTail) -> None:
        self.config = config
        self.url = config.url
        self.process = (
            StdioProcess(config.command, cwd=config.cwd, env=config.process_env(), stderr_tail=stderr)
            if config.command
            else None
        )
        self.peer = _NoPeer()
        self.extra_peers: list[Any] = []
        self._stderr = stderr
        self._stop = anyio.Event()

    async def run(self, *, task_status: anyio.abc.TaskStatus[HttpService]) -> None:
        try:
            async with anyio.create_task_group() as tg:
                if self.process is not None:
                    await self.process.start()
                    tg.start_soon(self.process.pump_stderr)
                    lines = self.process.lines()
                    self.url = await read_url(lines, self.config.timeout, "http")
                    tg.start_soon(_drain, lines)
                    tg.start_soon(self._watch_exit, self.process)
                task_status.started(self)
                await self._stop.wait()
                tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                if self.process is not None:
                    await self.process.terminate()

    async def _watch_exit(self, process: StdioProcess) -> None:
        code = await process.wait()
        self.peer.exited = AgentExited(code, self._stderr.text()[-2000:])

    async def close_extra(self) -> None:
        pass

    def stop(self) -> None:
        self._stop.set()


class StatusProbe:
    """One answer of the status endpoint, read defensively (the body is hostile data)."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.code = response.status_code
        self.text = response.text[:MAX_BODY]
        try:
            self.body: Any = response.json()
        except ValueError:
            self.body = None

    @property
    def status(self) -> Any:
        return self.body.get("status") if isinstance(self.body, dict) else None

    def describe(self) -> str:
        return f"HTTP {self.code} {self.text[:300]!r}"


class HttpStatusTarget:
    status_method = "GET " + STATUS_PATH
    status_need = "http-status"

    def is_status_call(self, method: str) -> bool:
        return method == self.status_method

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        options = runtime.config.http
        self.user_id = options.user_id
        self.other_user_id = options.other_user_id
        self.given_agent_id = options.agent_id
        self.given_session_id = options.session_id
        self.openapi: dict[str, Any] = {}
        self.drivable = False  # an AgentScope-compatible API: the suite can create and drive sessions
        self._driver: AgentScopeDriver | None = None
        self._synced = 0
        self._model: Any = None
        self._agent_id: str | None = None

    # -- setting up ----------------------------------------------------------------------------

    @property
    def driver(self) -> AgentScopeDriver:
        url = self.runtime.current_url()
        if url is None:
            raise HarnessError("the service is not running")
        if self._driver is None or self._driver.base_url != url.rstrip("/"):
            self._driver = AgentScopeDriver(url, timeout=self.runtime.config.timeout)
            self._synced = 0
            original = self._driver.request

            async def recorded(*args: Any, **kwargs: Any) -> httpx.Response:
                try:
                    return await original(*args, **kwargs)
                finally:
                    self._flush()

            self._driver.request = recorded  # type: ignore[method-assign]
        return self._driver

    async def handshake(self) -> dict[str, Any]:
        driver = self.driver
        try:
            response = await driver.request("GET", "/openapi.json", record_body=False)
            document = response.json() if response.status_code == 200 else {}
        except (httpx.HTTPError, ValueError) as exc:
            if isinstance(exc, httpx.ConnectError):
                raise HarnessError(f"cannot reach {driver.base_url}: {exc}") from None
            document = {}
        self.openapi = document if isinstance(document, dict) else {}
        self.drivable = AgentScopeDriver.recognise(self.openapi)
        info = self.openapi.get("info") if isinstance(self.openapi.get("info"), dict) else {}
        if self.drivable and self._model is None:
            from .fake_model import FakeChatModel

            self._model = FakeChatModel(slow_seconds=3.0)
            await self._model.start()
        self.runtime.transcript.add(
            NOTE,
            "service: "
            + (
                "an AgentScope-compatible API (sessions are created and driven through it)"
                if self.drivable
                else "no AgentScope-compatible API in /openapi.json: probing the session given with --session-id"
            ),
        )
        return {
            "serverInfo": {
                "name": str(info.get("title", "unknown service"))[:100],
                "version": str(info.get("version", ""))[:40],
            },
            "openapi": bool(self.openapi),
            "api": "agentscope" if self.drivable else "generic",
            "statusRoute": STATUS_PATH in (self.openapi.get("paths") or {}) if self.openapi else None,
        }

    @property
    def settle_time(self) -> float:
        """Seconds a driven session may take to reach a state (--timeout): runs end, leases are
        released, turns are persisted; AgentScope also names a session after its first turn."""
        return self.runtime.config.timeout

    @property
    def model(self) -> Any:
        """The fake OpenAI-compatible model the driven sessions talk to."""
        if self._model is None:
            raise HarnessError("no fake model: the service has no AgentScope-compatible API")
        return self._model

    def advertises(self, name: str) -> bool:
        if name == "http-status":
            return not self.openapi or STATUS_PATH in (self.openapi.get("paths") or {})
        return False

    # -- sessions ------------------------------------------------------------------------------

    async def new_session(self) -> tuple[str, str]:
        """(agent id, session id) of a fresh session of the caller (the user given by --user-id)."""
        if not self.drivable:
            return self.given_session()
        if self._agent_id is None:
            self._agent_id = await self.driver.create_agent(self.user_id, self._model.base_url)
        sid = await self.driver.create_session(
            self.user_id, self._agent_id, name=f"conformance-{uuid.uuid4().hex[:8]}"
        )
        return self._agent_id, sid

    def given_session(self) -> tuple[str, str]:
        if self.given_agent_id and self.given_session_id:
            return self.given_agent_id, self.given_session_id
        raise MissingInput(
            "the service has no AgentScope-compatible API to create sessions with: pass --agent-id and --session-id "
            "of an existing session of --user-id"
        )

    def require_driving(self, what: str) -> None:
        if not self.drivable:
            raise MissingInput(
                f"{what} needs sessions driven through the service's own API (POST /chat/); this service has no "
                "AgentScope-compatible API in its /openapi.json"
            )

    def unknown_id(self) -> str:
        return f"conformance-missing-{uuid.uuid4().hex[:12]}"

    # -- probing -------------------------------------------------------------------------------

    async def status(
        self,
        session_id: str,
        agent_id: str | None,
        *,
        user_id: str | None = None,
        omit_user: bool = False,
    ) -> StatusProbe:
        user = None if omit_user else (user_id or self.user_id)
        try:
            response = await self.driver.status(user, agent_id, session_id)
        except httpx.TimeoutException:
            # The case ends at its first unanswered request (a stalling service holds no run hostage).
            raise Unanswered(
                self.status_method, session_id, self.runtime.config.timeout, params={"agent_id": agent_id}
            ) from None
        self.runtime.peer.answered[self.status_method] += 1
        return StatusProbe(response)

    async def chat(self, agent_id: str, session_id: str, text: str) -> None:
        response = await self.driver.start_chat(self.user_id, agent_id, session_id, text)
        if response.status_code >= 300:
            raise NotTestable(
                f"POST /chat/ to start a run answered HTTP {response.status_code}: {response.text[:300]}"
            )

    async def wait_for(
        self, agent_id: str, session_id: str, wanted: str | set[str], timeout: float = 15.0
    ) -> StatusProbe:
        """Poll until the status is ``wanted`` (one of them); the last probe either way."""
        goals = {wanted} if isinstance(wanted, str) else wanted
        with anyio.move_on_after(timeout):
            while True:
                probe = await self.status(session_id, agent_id)
                if probe.status in goals:
                    return probe
                await anyio.sleep(0.05)
        return probe

    async def settle(self, agent_id: str, session_id: str) -> None:
        """Until the session is idle again: a case leaves no run going behind it (a run resumed by
        a confirmation would otherwise race the next case's requests on the service)."""
        await self.wait_for(agent_id, session_id, "idle", timeout=self.settle_time)

    async def wait_for_model(self, mark: int, timeout: float = 10.0) -> None:
        """Until the fake model has been asked something since ``mark`` (the run has started)."""
        with anyio.move_on_after(timeout):
            while len(self.model.requests) <= mark:
                await anyio.sleep(0.02)

    async def snapshot(self, agent_id: str, session_id: str) -> dict[str, Any]:
        """What the service shows of a session besides its status: its messages and its listing entry."""
        messages = await self.driver.messages(self.user_id, agent_id, session_id)
        listing = await self.driver.list_sessions(self.user_id, agent_id)
        entry = None
        if listing.status_code == 200:
            body = listing.json()
            items = body.get("sessions") if isinstance(body, dict) else body
            for item in items if isinstance(items, list) else []:
                if not isinstance(item, dict):
                    continue
                nested = item.get("session") if isinstance(item.get("session"), dict) else {}
                if session_id in (item.get("session_id"), item.get("id"), nested.get("id")):
                    entry = item
        return {
            "messages": (messages.status_code, messages.text[:MAX_BODY]),
            "listing": entry,
            "count": _count(listing),
        }

    # -- the transcript ------------------------------------------------------------------------

    def _flush(self) -> None:
        if self._driver is None:
            return
        for exchange in self._driver.transcript[self._synced :]:
            self.runtime.transcript.add(SEND, curl(exchange))
            status = exchange.get("status_code")
            self.runtime.transcript.add(RECV, f"HTTP {status} {exchange.get('response_body') or ''}")
        self._synced = len(self._driver.transcript)


def curl(exchange: dict[str, Any]) -> str:
    words = ["curl", "-sS", "-X", exchange["method"], exchange["url"]]
    for name, value in (exchange.get("headers") or {}).items():
        words += ["-H", f"{name}: {value}"]
    if exchange.get("request_body") is not None:
        words += ["-H", "content-type: application/json", "--data", json.dumps(exchange["request_body"])]
    return shlex.join(words)


def _count(listing: httpx.Response) -> int | None:
    try:
        body = listing.json()
    except ValueError:
        return None
    items = body.get("sessions", body.get("items")) if isinstance(body, dict) else body
    return len(items) if isinstance(items, list) else None

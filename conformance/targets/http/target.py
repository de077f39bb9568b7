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
import random
import re
import shlex
import time
import uuid
from typing import TYPE_CHECKING, Any, ClassVar

import anyio
import anyio.abc
import httpx

from conformance.core import revisions
from conformance.core.config import AgentConfig
from conformance.core.outcomes import AgentExited, HarnessError, MissingInput, NotTestable, Unanswered
from conformance.core.transcript import NOTE, RECV, SEND, StderrTail, Transcript
from conformance.core.validation import strict_loads
from conformance.targets.base import DriverHooks
from conformance.targets.http.agentscope import STATUSES, AgentScopeDriver, Refused
from conformance.targets.http.calibration import flatten, parsed, schema_refuses, shaped_like
from conformance.targets.http.creation import Parameter, creation_parameters, draw_options
from conformance.targets.http.options import HttpOptions
from conformance.transport.process import _drain, read_url
from conformance.transport.stdio import StdioProcess

if TYPE_CHECKING:
    from conformance.targets.base import Driver, Harness

__all__ = ["HttpService", "HttpStatusTarget", "StatusProbe"]

STATUS_PATH = "/sessions/{session_id}/status"
MAX_BODY = 4000
SHAPE_SAMPLES = 4  # real ids of each kind a run learns their shape from
CONNECT_RETRY = 0.05  # seconds between tries to reach a service that printed its URL
MAX_REDIRECTS = 5  # redirects of one request followed, within the service's origin


class HttpConnection:
    """What the harness reads from the service after each case (targets.base.Connection): whether
    it exited, and how many status probes it answered. No JSON-RPC, so no envelope problems."""

    def __init__(self) -> None:
        self.exited: AgentExited | None = None
        self.problems: list[Any] = []
        self.reported = 0
        self.answered: collections.Counter[str] = collections.Counter()  # status probes answered, this case
        # No JSON-RPC requests are counted: its cases never count as having asked status when a
        # request of theirs goes unanswered (runtime's status_asked).
        self.sent: collections.Counter[str] = collections.Counter()

    def new_case(self) -> None:
        self.answered.clear()
        self.sent.clear()


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
        self.connection = HttpConnection()
        self.extra_connections: list[Any] = []
        self._stderr = stderr
        self._stop = anyio.Event()

    async def run(self, *, task_status: anyio.abc.TaskStatus[HttpService]) -> None:
        try:
            await self._serve(task_status)
        except BaseExceptionGroup as group:  # one failure (no URL printed, say): that failure itself
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise

    async def _serve(self, task_status: anyio.abc.TaskStatus[HttpService]) -> None:
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
        self.connection.exited = AgentExited(code, self._stderr.text()[-2000:])

    async def open_connection(self, label: str, tg: anyio.abc.TaskGroup) -> Any:
        raise MissingInput(
            "an HTTP service is asked with one request per probe: there is no second connection"
        )

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
        # Seconds a probe sent while a run worked took to be answered, when it was answered only
        # after the run's model call ended (the case that sent it says so); else None.
        self.late: float | None = None
        # Why the body is not JSON, when it is not (NaN in it: Python's parser takes it, clients do not).
        self.not_json = ""
        try:
            self.body: Any = strict_loads(response.content)
        except (ValueError, RecursionError) as exc:
            self.body = None
            self.not_json = str(exc)[:200]

    @property
    def status(self) -> Any:
        return self.body.get("status") if isinstance(self.body, dict) else None

    @property
    def media_type(self) -> str | None:
        """The Content-Type's type/subtype, lower-cased (RFC 9110 8.3.1: case-insensitive, any
        parameters after it, such as charset, left out); None without a Content-Type."""
        value = self.response.headers.get("content-type")
        return None if value is None else value.split(";", 1)[0].strip().lower()

    def describe(self) -> str:
        return f"HTTP {self.code} {self.text[:300]!r}"


class HttpStatusTarget(DriverHooks):
    """A session-status service under test (AgentScope's GET /sessions/{id}/status), spoken to
    with plain HTTP requests; driven through AgentScope's API where it has one."""

    name: ClassVar[str] = "http"
    status_method: ClassVar[str] = "GET " + STATUS_PATH
    status_need: ClassVar[str] = "http-status"

    @staticmethod
    def replay_record(config: AgentConfig) -> dict[str, Any]:
        options = config.target_options if isinstance(config.target_options, HttpOptions) else HttpOptions()
        return {
            "url": None if config.command else config.url,  # a service started by the command: its own URL
            "userId": options.user_id,
            "otherUserId": options.other_user_id,
            "agentId": options.agent_id,
            "sessionId": options.session_id,
        }

    def is_status_call(self, method: str) -> bool:
        return method == self.status_method

    async def detect_revision(self) -> tuple[str, str]:
        return revisions.available(self.name)[0], f"the {self.name} target's spec"

    def __init__(self, harness: Harness) -> None:
        self.harness = harness
        options = harness.config.target_options
        options = options if isinstance(options, HttpOptions) else HttpOptions()
        self.user_id = options.user_id
        self.other_user_id = options.other_user_id
        self.given_agent_id = options.agent_id
        self.given_session_id = options.session_id
        self.long_run = options.long_run
        self.idle_evict_after = options.idle_evict_after
        self.memory_cap = options.memory_cap
        self.request_limit = options.request_limit
        self.openapi: dict[str, Any] = {}
        # Optional parameters of session creation the OpenAPI document names (new_session(varied=True)).
        self.creation_parameters: list[Parameter] = []
        self.created_with: dict[str, dict[str, Any]] = {}
        self.creation_refused: dict[str, int] = {}
        self._varied = 0
        self.drivable = False  # an AgentScope-compatible API: the suite can create and drive sessions
        self._driver: AgentScopeDriver | None = None
        self._synced = 0
        self._model: Any = None
        self._agent_id: str | None = None
        # Real ids of the service: the ids the cases invent take their shape, and are none of them.
        self._session_ids: list[str] = [self.given_session_id] if self.given_session_id else []
        self._agent_ids: list[str] = [self.given_agent_id] if self.given_agent_id else []
        self._invented: set[str] = set()
        # Every status word outside the spec's four that any probe of the run was answered with
        # (the first answer carrying it): http.status.known-value reports them all.
        self.unknown_words: dict[str, str] = {}

    # -- setting up ----------------------------------------------------------------------------

    @property
    def driver(self) -> AgentScopeDriver:
        url = self.harness.current_url()
        if url is None:
            raise HarnessError("the service is not running")
        if self._driver is None or self._driver.base_url != url.rstrip("/"):
            before = self._driver
            self._driver = AgentScopeDriver(url, timeout=self.harness.config.timeout)
            if before is not None:  # a restarted service: its agents' sessions still use the fake model
                self._driver.adopt(before)
            self._synced = 0
            original = self._driver.request

            async def recorded(*args: Any, **kwargs: Any) -> httpx.Response:
                try:
                    return await original(*args, **kwargs)
                finally:
                    self._flush()

            self._driver.request = recorded
        return self._driver

    async def _first_answer(self, driver: AgentScopeDriver) -> httpx.Response:
        """GET /openapi.json, the service's first answer: a service may print its URL a moment
        before it accepts connections (a port chosen, then a server started on it), so a refused
        connection is tried again until --timeout has passed since the URL was printed (at once
        a failure for a service given by --http-url, which was listening already)."""
        started = self.harness.config.restartable
        deadline = anyio.current_time() + (self.harness.config.timeout if started else 0)
        while True:
            try:
                return await driver.request("GET", "/openapi.json", record_body=False)
            except httpx.ConnectError as exc:
                if anyio.current_time() >= deadline or not self.harness.agent_alive:
                    raise HarnessError(
                        f"cannot reach {driver.base_url} (the URL the service printed) within "
                        f"{self.harness.config.timeout:g} s (--timeout): {exc}"
                    ) from None
                await anyio.sleep(CONNECT_RETRY)

    async def handshake(self) -> dict[str, Any]:
        driver = self.driver
        try:
            response = await self._first_answer(driver)
            document = response.json() if response.status_code == 200 else {}
        except (httpx.HTTPError, ValueError):
            document = {}
        self.openapi = document if isinstance(document, dict) else {}
        self.drivable = AgentScopeDriver.recognise(self.openapi)
        self.creation_parameters = creation_parameters(self.openapi) if self.drivable else []
        info = found if isinstance(found := self.openapi.get("info"), dict) else {}
        if self.drivable and self._model is None:
            from conformance.targets.http.fake_model import FakeChatModel

            self._model = FakeChatModel(slow_seconds=3.0)
            await self._model.start()
        self.harness.transcript.add(
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
        return self.harness.config.timeout

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

    def capability_name(self, name: str) -> str:
        if name == "http-status":
            return f"GET {STATUS_PATH} (its OpenAPI document has no such route)"
        return name

    # -- sessions ------------------------------------------------------------------------------

    async def new_session(self, *, varied: bool = False, draw: int | None = None) -> tuple[str, str]:
        """(agent id, session id) of a fresh session of the caller (the user given by --user-id).

        ``varied``: created with a value for every optional parameter of ``POST /sessions/`` the
        service's OpenAPI document names (another workspace, an enum value, drawn from the run's
        seed); where the service refuses them, with the defaults (said in the details). Sessions
        of one ``draw`` (:meth:`creation_draw`) get the same values but a free string's, which is
        each session's own."""
        if not self.drivable:
            return self.given_session()
        if self._agent_id is None:
            await self._make_agent()
        options = self._creation_options(draw) if varied else None
        try:
            sid = await self._create_varied(options)
        except Refused as refused:
            if refused.code != 404:
                raise
            # The agent it made is gone (a service that keeps nothing across a restart, a store
            # that keeps the sessions but not the agents): made again, with its credential.
            await self._make_agent()
            sid = await self._create_varied(options)
        assert self._agent_id is not None  # made above
        return self._agent_id, sid

    def creation_draw(self) -> int:
        """A new draw of creation parameters, for sessions that must be created alike."""
        self._varied += 1
        return self._varied

    def _creation_options(self, draw: int | None) -> dict[str, Any] | None:
        rng = random.Random(f"{self.harness.config.seed or 0}-{draw or self.creation_draw()}")
        return draw_options(self.creation_parameters, rng) or None

    async def _create_varied(self, options: dict[str, Any] | None) -> str:
        """A session created with ``options``, else (refused: a service may keep workspaces it
        made itself) with the defaults; what each session was created with is kept for the details."""
        if not options:
            return await self._create_session()
        try:
            sid = await self._create_session(options)
        except Refused as refused:
            sid = await self._create_session()  # its 404 (the agent gone) goes to new_session
            self.creation_refused.setdefault(", ".join(sorted(options)), refused.code)
            return sid
        self.created_with[sid] = options
        return sid

    def creation_details(self, *sids: str) -> dict[str, Any]:
        """For a case's details: the optional parameters its sessions were created with."""
        shown: dict[str, Any] = {sid: self.created_with[sid] for sid in sids if sid in self.created_with}
        if self.creation_refused:
            shown["refused"] = {k: f"HTTP {v}" for k, v in self.creation_refused.items()}
        if not self.creation_parameters:
            shown["parameters"] = "none: POST /sessions/ documents no optional parameter the suite can vary"
        return shown

    async def _make_agent(self) -> None:
        self._agent_id = await self.driver.create_agent(self.user_id, self._model.base_url)
        self._agent_ids.append(self._agent_id)
        await self._learn_id_shapes()

    async def _create_session(self, options: dict[str, Any] | None = None) -> str:
        assert self._agent_id is not None
        sid = await self.driver.create_session(
            self.user_id, self._agent_id, name=f"conformance-{uuid.uuid4().hex[:8]}", options=options
        )
        self._session_ids.append(sid)
        return sid

    async def _learn_id_shapes(self) -> None:
        """A few more real ids than the cases need: from one id the suite cannot tell which of
        its characters are fixed (a prefix, a UUID's version and variant digits), and a service
        that validates them answers an id with the wrong ones 422, not 404."""
        while len(self._agent_ids) < SHAPE_SAMPLES:
            self._agent_ids.append(await self.driver.create_agent(self.user_id, self._model.base_url))
        while len(self._session_ids) < SHAPE_SAMPLES:
            await self._create_session()

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
        """A session id nobody created, in the shape of the service's own ids (a service that
        validates the format must not answer 422 where the cases ask about existence)."""
        return self._invent(self._session_ids, "conformance")

    def other_agent_id(self, agent_id: str) -> str:
        """An agent id the session does not belong to, in the shape of the real ones."""
        return self._invent([agent_id, *self._agent_ids], "conformance-agent")

    async def sibling_agent_id(self) -> str | None:
        """A new real agent of the same caller (one the session does not belong to), made now so
        that it exists whatever restarted before; None where the suite cannot make agents."""
        if not self.drivable:
            return None
        made = await self.driver.create_agent(self.user_id, self._model.base_url)
        self._agent_ids.append(made)
        return made

    def _invent(self, models: list[str], fallback_prefix: str) -> str:
        made = shaped_like(
            list(dict.fromkeys(models)),
            fallback_prefix=fallback_prefix,
            avoid=self._invented | set(self._session_ids) | set(self._agent_ids),
        )
        self._invented.add(made)
        return made

    async def restart(self) -> None:
        """Restart the service with its command (a service given by URL cannot be restarted)."""
        if not self.harness.config.restartable:
            raise MissingInput(
                "the service was given by --http-url, so the suite cannot restart it: pass --http-cmd CMD"
            )
        await self.harness.restart_agent()

    def forget_agent(self) -> None:
        """The service lost the agent the cases' sessions belong to (a restart of a service that keeps
        nothing): the next session is made with a new one."""
        self._agent_id = None

    def deletes(self) -> bool:
        """The service documents DELETE /sessions/{session_id} (AgentScope does)."""
        return self.offers("delete", "/sessions/{session_id}")

    def session_id_refusal(self, session_id: str) -> str | None:
        """Why the service's own published contract makes a request with this session id invalid
        (its OpenAPI declares a uuid format, a pattern or a length for the status route's
        session_id that the id breaks), or None: the id is a valid request for a session that may
        not exist, whose answer is 404, not 422 (the spec's parameter is a plain string)."""
        return schema_refuses(self.openapi, STATUS_PATH, "session_id", session_id)

    def offers(self, method: str, path: str) -> bool:
        """The service's OpenAPI document has ``method`` (lower case) on ``path``."""
        paths = found if isinstance(found := self.openapi.get("paths"), dict) else {}
        item = paths.get(path)
        return isinstance(item, dict) and method in item

    # -- probing -------------------------------------------------------------------------------

    async def status(
        self,
        session_id: str,
        agent_id: str | None,
        *,
        user_id: str | None = None,
        omit_user: bool = False,
        headers: dict[str, str] | None = None,
    ) -> StatusProbe:
        user = None if omit_user else (self.user_id if user_id is None else user_id)
        try:
            response = await self.driver.status(user, agent_id, session_id, headers=headers)
        except httpx.TimeoutException:
            # The case ends at its first unanswered request (a stalling service holds no run hostage).
            raise Unanswered(
                self.status_method, session_id, self.harness.config.timeout, params={"agent_id": agent_id}
            ) from None
        except (httpx.ReadError, httpx.RemoteProtocolError, httpx.WriteError) as exc:
            raise Unanswered(
                self.status_method,
                session_id,
                self.harness.config.timeout,
                why=f"the service closed the connection without an answer ({type(exc).__name__})",
                params={"agent_id": agent_id},
            ) from None
        self.harness.connection.answered[self.status_method] += 1
        probe = StatusProbe(response)
        word = probe.status
        if 200 <= probe.code < 300 and word is not None and word not in STATUSES:
            self.unknown_words.setdefault(
                repr(word)[:100],
                f"GET /sessions/{session_id[:100]}/status (agent_id {agent_id!r:.100}): {probe.describe()}",
            )
        return probe

    async def ask(
        self,
        method: str,
        path: str,
        *,
        user_id: str | None = None,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> list[StatusProbe]:
        """``method path`` as ``user_id`` (the caller by default), following the redirects the
        service answers within its own origin as a client does (RFC 9110 15.4: 307 and 308 keep
        the method, 301 to 303 turn anything but HEAD into GET), the caller's headers kept, at
        most MAX_REDIRECTS of them: every answer, in order. A redirect elsewhere is not followed."""
        answers: list[StatusProbe] = []
        user = self.user_id if user_id is None else user_id
        for _ in range(MAX_REDIRECTS + 1):
            try:
                response = await self.driver.request(
                    method, path, user_id=user, params=params, headers=headers, record_body=method != "HEAD"
                )
            except httpx.TimeoutException:
                raise Unanswered(f"{method} {path[:200]}", "", self.harness.config.timeout) from None
            except (httpx.ReadError, httpx.RemoteProtocolError, httpx.WriteError) as exc:
                raise Unanswered(
                    f"{method} {path[:200]}",
                    "",
                    self.harness.config.timeout,
                    why=f"the service closed the connection without an answer ({type(exc).__name__})",
                ) from None
            answers.append(StatusProbe(response))
            location = response.headers.get("location")
            if not 300 <= response.status_code < 400 or location is None:
                break
            try:
                target = response.url.join(location)
            except (httpx.InvalidURL, ValueError):
                break
            if (target.scheme, target.host, target.port) != (
                response.url.scheme,
                response.url.host,
                response.url.port,
            ):
                break
            if response.status_code in (301, 302, 303) and method != "HEAD":
                method = "GET"
            path, params = target.raw_path.decode("ascii", "replace"), None
        return answers

    async def prompt(self, agent_id: str, session_id: str, text: str) -> httpx.Response:
        """POST /chat/ with one user message, as the service answered it (a prompt: it starts a turn)."""
        return await self.driver.start_chat(self.user_id, agent_id, session_id, text)

    async def chat(self, agent_id: str, session_id: str, text: str) -> str:
        """Start a run with one user message; the tag it carries (every request the run makes to
        the fake model quotes it, so the case finds its own run's calls among all others)."""
        tag = f"turn-{uuid.uuid4().hex[:10]}"
        response = await self.driver.start_chat(self.user_id, agent_id, session_id, f"{text} ({tag})")
        if response.status_code >= 300:
            await self._chat_refused(agent_id, response)
        return tag

    async def _chat_refused(self, agent_id: str, response: httpx.Response) -> None:
        """POST /chat/ is outside the spec: refused on a fresh session too, the refusal is the
        service's own and nothing can be concluded; started there, what the refused session went
        through made it refuse, and the prerequisite the case relied on failed."""
        what = f"POST /chat/ to start a run answered HTTP {response.status_code}: {response.text[:300]}"
        _, control = await self.new_session()
        unprobed = await self.driver.start_chat(self.user_id, agent_id, control, "hello")
        if unprobed.status_code >= 300:
            raise MissingInput(
                f"{what}; on a fresh session too (HTTP {unprobed.status_code}): the service refuses the runs the "
                "suite starts"
            )
        await self.settle(agent_id, control)
        raise NotTestable(f"{what} (on a fresh session a run started)")

    async def wait_for(
        self, agent_id: str, session_id: str, wanted: str | set[str], timeout: float = 15.0
    ) -> StatusProbe:
        """Poll until the status is ``wanted`` (one of them); the last probe either way."""
        goals = {wanted} if isinstance(wanted, str) else wanted
        probe: StatusProbe | None = None
        with anyio.move_on_after(timeout):
            while True:
                probe = await self.status(session_id, agent_id)
                if probe.status in goals:
                    return probe
                await anyio.sleep(0.05)
        if probe is None:  # the deadline passed while the first probe waited for its answer
            raise Unanswered(self.status_method, session_id, timeout, params={"agent_id": agent_id})
        return probe

    async def settle(self, agent_id: str, session_id: str) -> None:
        """Until the session is idle again: a case leaves no run going behind it (a run resumed by
        a confirmation would otherwise race the next case's requests on the service)."""
        await self.wait_for(agent_id, session_id, "idle", timeout=self.settle_time)

    def model_requests(self, tag: str) -> list[dict[str, Any]]:
        """The fake model's requests made for the run started with ``tag`` (and its resumptions)."""
        return [r for r in self.model.requests if tag in json.dumps(r["body"].get("messages"))]

    async def wait_for_model(
        self, tag: str, timeout: float = 10.0, script: str | None = None
    ) -> dict[str, Any] | None:
        """Until the run started with ``tag`` has asked the fake model something (with ``script``,
        if given): that request, or None."""
        with anyio.move_on_after(timeout):
            while True:
                for request in self.model_requests(tag):
                    if script is None or request["script"] == script:
                        return request
                await anyio.sleep(0.02)
        return None

    async def status_in_flight(
        self, session_id: str, agent_id: str | None, request: dict[str, Any], **kwargs: Any
    ) -> tuple[StatusProbe, bool]:
        """A status probe and whether it was sent and answered while the model ``request`` was in
        flight (the run was working on it: a worker held the run lease the whole time)."""
        sent = time.time()
        probe = await self.status(session_id, agent_id, **kwargs)
        inside = request["at"] <= sent and request["done"] is None
        return probe, inside

    async def snapshot(self, agent_id: str, session_id: str) -> dict[str, Any]:
        """What the service shows of a session besides its status, flattened field by field
        (``messages.…``: the messages answer; ``listing.…``: the session's entry in the listing,
        absent when the listing shows no entry carrying the id, whatever its layout)."""
        messages = await self.driver.messages(self.user_id, agent_id, session_id)
        listing = await self.driver.list_sessions(self.user_id, agent_id)
        view = flatten({"code": messages.status_code, "body": _body(messages)}, "messages")
        entry = find_entry(_body(listing), session_id) if listing.status_code == 200 else None
        if entry is not None:
            view.update(flatten(entry, "listing"))
        return view

    async def waiting_calls(self, agent_id: str, session_id: str) -> list[dict[str, Any]] | None:
        """The tool calls of the session's last assistant message that still wait (state
        ``asking``: for the user's permission; ``submitted``: for an external executor), as its
        messages show them; None when the messages cannot be read."""
        response = await self.driver.messages(self.user_id, agent_id, session_id)
        body = _body(response) if response.status_code == 200 else None
        messages = body.get("messages") if isinstance(body, dict) else None
        if not isinstance(messages, list):
            return None
        for message in reversed(messages):
            if isinstance(message, dict) and message.get("role") == "assistant":
                content = message.get("content")
                return [
                    b
                    for b in (content if isinstance(content, list) else [])
                    if isinstance(b, dict)
                    and b.get("type") == "tool_call"
                    and b.get("state") in ("asking", "submitted")
                ]
        return []

    async def exists_elsewhere(self, agent_id: str, session_id: str, *, user_id: str | None = None) -> int:
        """The HTTP code of the session's messages for this caller: how another method of the
        service answers for the same (session id, agent id, caller)."""
        response = await self.driver.messages(user_id or self.user_id, agent_id, session_id, limit=1)
        return response.status_code

    async def listed(self, agent_id: str, session_id: str, *, user_id: str | None = None) -> bool | None:
        """Whether the listing of the agent's sessions, asked as this caller, carries the session
        (whatever its layout); None when the listing did not answer 200."""
        response = await self.driver.list_sessions(user_id or self.user_id, agent_id)
        return find_entry(_body(response), session_id) is not None if response.status_code == 200 else None

    async def returned_values(self, agent_id: str, session_id: str) -> tuple[list[str], set[str]]:
        """What the listing of the agent's sessions, asked as the caller, shows about them
        (:func:`listed_values`); nothing where it does not answer 200."""
        response = await self.driver.list_sessions(self.user_id, agent_id)
        return listed_values(_body(response) if response.status_code == 200 else None, session_id)

    def known_session_ids(self) -> set[str]:
        """Every session id of the service the run has learned (created or given)."""
        return set(self._session_ids)

    # -- the transcript ------------------------------------------------------------------------

    def _flush(self) -> None:
        if self._driver is None:
            return
        for exchange in self._driver.transcript[self._synced :]:
            if "status_code" not in exchange:  # still in flight (requests sent together): shown once answered
                break
            self.harness.transcript.add(SEND, curl(exchange))
            status = exchange.get("status_code")
            self.harness.transcript.add(RECV, f"HTTP {status} {exchange.get('response_body') or ''}")
            self._synced += 1


def curl(exchange: dict[str, Any]) -> str:
    words = ["curl", "-sS", "-X", exchange["method"], exchange["url"]]
    for name, value in (exchange.get("headers") or {}).items():
        words += ["-H", f"{name}: {value}"]
    if exchange.get("request_body") is not None:
        words += ["-H", "content-type: application/json", "--data", json.dumps(exchange["request_body"])]
    return shlex.join(words)


_LABEL = re.compile(r"name|title|label|slug|alias", re.IGNORECASE)
MAX_SNAPSHOT = 1_000_000  # bytes of a body parsed for a snapshot; a larger one is compared as text


def _body(response: httpx.Response) -> Any:
    if len(response.content) > MAX_SNAPSHOT:
        return response.text[:MAX_BODY]
    return parsed(response.text)


def find_entry(body: Any, session_id: str, depth: int = 0) -> dict[str, Any] | None:
    """The listing's entry for a session: the element of a list in the body (at any depth) that
    carries the session id as one of its values, whatever the field is called."""
    if depth > 16:
        return None
    if isinstance(body, dict):
        for value in body.values():
            found = find_entry(value, session_id, depth + 1)
            if found is not None:
                return found
    elif isinstance(body, list):
        for item in body:
            if isinstance(item, dict) and session_id in flatten(item).values():
                return item
        for item in body:
            found = find_entry(item, session_id, depth + 1)
            if found is not None:
                return found
    return None


def listed_values(body: Any, session_id: str) -> tuple[list[str], set[str]]:
    """The strings a listing shows about the sessions in it (the session's own entry first, then
    the others'; in each, a label such as a name or a title first, then the rest: the agent and
    user ids, timestamps), and the live session ids it shows: in every entry, the value at each
    place where the session's own entry carries its id. Nothing where no entry carries the id."""
    entry = find_entry(body, session_id)
    if entry is None:
        return [], set()
    places = {path for path, value in flatten(entry).items() if value == session_id}
    entries = [entry, *(e for e in _entries_beside(body, entry) if e is not entry)]
    values: list[tuple[bool, bool, str]] = []
    live: set[str] = set()
    for index, item in enumerate(entries):
        for path, value in flatten(item).items():
            if not isinstance(value, str):
                continue
            if path in places:
                live.add(value)
            else:
                # A label a client gives or reads (a name, a title) first: what a caller links by.
                values.append((index > 0, not _LABEL.search(path.rpartition(".")[2]), value))
    values.sort(key=lambda item: item[:2])
    return list(dict.fromkeys(v for *_, v in values)), live


def _entries_beside(body: Any, entry: dict[str, Any], depth: int = 0) -> list[dict[str, Any]]:
    """The objects of the list (at any depth of the body) that holds ``entry``: the listing's
    other entries; [] where no list holds it."""
    if depth > 16:
        return []
    if isinstance(body, list):
        if any(item is entry for item in body):
            return [item for item in body if isinstance(item, dict)]
        children: list[Any] = body
    elif isinstance(body, dict):
        children = list(body.values())
    else:
        return []
    for child in children:
        found = _entries_beside(child, entry, depth + 1)
        if found:
            return found
    return []


# pyright checks the class against the Protocol the harness drives targets by: a driver that drifts
# from it fails the type check (python -m tools.typecheck).
_DRIVES: type[Driver] = HttpStatusTarget

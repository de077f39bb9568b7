"""The ACP v1 target: the lifecycle calls cases use, with prerequisites turned into outcomes.

Cases speak to the agent only through this adapter. A lifecycle call the agent advertised but
that fails raises :class:`NotTestable` (a failure); raw calls return the :class:`Reply` as-is.
"""

from __future__ import annotations

import os
import sys
import tempfile
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import anyio

from conformance.core import revisions
from conformance.core.config import UsageError
from conformance.core.outcomes import (
    AgentExited,
    HarnessError,
    MissingInput,
    NotTestable,
    Unanswered,
    Unprepared,
    shorten,
)
from conformance.targets.acp import mcp_stub
from conformance.targets.acp.client_profile import BARE, EDITOR, EditorFiles, initialize_params
from conformance.targets.acp.expect import SESSION_NOT_FOUND
from conformance.targets.acp.options import AcpOptions
from conformance.targets.base import DriverHooks
from conformance.transport.peer import JsonRpcPeer, Reply

if TYPE_CHECKING:
    from conformance.core.config import AgentConfig
    from conformance.targets.base import Driver, Harness

__all__ = ["MISSING", "AcpTarget", "state_update"]

T = TypeVar("T")

PROTOCOL_VERSION = 1
AUTH_REQUIRED = -32000  # session/new's error when the agent needs authenticate first
MISSING: Any = object()
CLIENT_INFO = {"name": "session-status-conformance", "version": "0.1.0"}
# Seconds without a notification after which an agent's own late updates (a command list sent a
# moment after session/new answers, a title made after a turn) are taken to have arrived.
QUIET = 0.25


def session_of(params: Any) -> str | None:
    """The session a notification's params are about (None unless a string: hostile data)."""
    value = params.get("sessionId") if isinstance(params, dict) else None
    return value if isinstance(value, str) else None


def state_update(params: Any) -> dict[str, Any] | None:
    """The update of a v2 `state_update` session/update notification's params, else None."""
    update = params.get("update") if isinstance(params, dict) else None
    if isinstance(update, dict) and update.get("sessionUpdate") == "state_update":
        return update
    return None


def reference_command(transport: str = "stdio", values: dict[str, Any] | None = None) -> list[str]:
    """The embedded reference agent (official ACP Python SDK): v1 or v2 (--protocol), on stdio,
    WebSocket or Streamable HTTP."""
    command = [sys.executable, "-m", "conformance.reference.acp.agent"]
    if (values or {}).get("agent_protocol") == 2:
        if transport != "stdio":
            raise UsageError(
                "the embedded reference agent serves ACP v2 over stdio only: drop --transport, or pass --agent"
            )
        command += ["--protocol", "2"]
    if transport == "websocket":
        command += ["--listen", "127.0.0.1:0"]
    elif transport == "http":
        command += ["--listen-http", "127.0.0.1:0"]
    return command


class AcpTarget(DriverHooks):
    """One agent under test, spoken to as an ACP client (v1, or v2 with --protocol 2)."""

    name: ClassVar[str] = "acp"
    status_method: ClassVar[str] = "session/status"
    status_need: ClassVar[str] = "status"

    @staticmethod
    def replay_record(config: AgentConfig) -> dict[str, Any]:
        return {}  # the command and its working directory say it all

    def is_status_call(self, method: str) -> bool:
        return method == self.status_method

    def __init__(self, harness: Harness, peer: JsonRpcPeer | None = None) -> None:
        self.harness = harness
        self.init_result: dict[str, Any] = {}
        self._peer = peer  # a second connection's own peer; None: the harness's main one
        self.turn_ends: dict[str, float] = {}  # when each session's last turn ended (as the suite saw it)
        self.prompted_at: dict[str, float] = {}  # when the suite last sent each session a prompt
        # When a status answer last said the session has no turn going (v2 `idle`, inactive, an
        # error): the agent's own word that a turn it was asked during is over.
        self.no_turn_said: dict[str, float] = {}
        self.ran_out: set[str] = set()  # sessions whose turn was waited for a whole turn clock in vain
        # Sessions created with the optional parameters of session/new (which ones), and what the
        # agent answered when it refused them (its sessions then have the defaults).
        self.created_with: dict[str, list[str]] = {}
        self.created: list[str] = []  # every session this connection's session/new made, in order
        self.creation_refused = ""
        self._additional_directory: str | None = None
        # What this connection's client declares (client_profile): a case may restart the agent or
        # connect again under another; the editor's files, while it declares file access.
        self.client_profile = BARE
        self.editor_files: EditorFiles | None = None

    @property
    def peer(self) -> JsonRpcPeer:
        return self._peer if self._peer is not None else self.harness.peer

    async def connect_again(self, label: str = "B", profile: str = BARE) -> AcpTarget:
        """Another client connection to the same agent, initialized (needs a WebSocket or
        Streamable HTTP agent); its frames are labelled ``label`` in transcripts, and its client
        declares ``profile`` (client_profile)."""
        other = AcpTarget(self.harness, peer=await self.harness.open_connection(label))
        other.client_profile = profile
        await other.handshake()
        return other

    async def second_process(self, label: str = "E", profile: str = BARE) -> AcpTarget:
        """Another process of the agent's command beside this one (stdio: each client starts its
        own), initialized by a client that declares ``profile``; stopped when the case ends."""
        other = AcpTarget(self.harness, peer=await self.harness.start_second_agent(label))
        other.client_profile = profile
        await other.handshake()
        return other

    async def second_process_or_reason(
        self, label: str = "E", profile: str = BARE
    ) -> tuple[AcpTarget | None, str]:
        """:meth:`second_process`, or None and why there is none (:meth:`second_processes_or_reason`)."""
        started, why = await self.second_processes_or_reason({label: profile})
        return started.get(label), why

    async def second_processes_or_reason(self, profiles: dict[str, str]) -> tuple[dict[str, AcpTarget], str]:
        """:meth:`second_process` for each label -> profile, all started at once (an agent's start is
        its slowest step), by label; or none and why: the agent is no command on stdio, or a second
        process did not come up beside the first (which an agent may legally refuse: a lock on its
        store), and then whatever was started is stopped."""
        started: dict[str, AcpTarget] = {}
        failed: list[str] = []

        async def start(label: str, profile: str) -> None:
            try:
                started[label] = await self.second_process(label, profile)
            except (AgentExited, Unanswered, HarnessError) as exc:
                failed.append(f"{label}: {str(exc)[:300]}" if len(profiles) > 1 else str(exc)[:300])

        async with anyio.create_task_group() as tg:
            for label, profile in profiles.items():
                tg.start_soon(start, label, profile)
        if failed:
            await self.harness.stop_second_agents()
            return {}, failed[0]
        return started, ""

    async def detect_revision(self) -> tuple[str, str]:
        """The revision whose status words the agent answers for a new session (the default when
        it does not advertise status or answers no word)."""
        if not self.advertises("status"):
            return revisions.default(
                self.name
            ), "the agent does not advertise session/status; the default revision"
        reply = await self.status(await self.new_session())
        value = reply.result.get("status") if reply.ok and isinstance(reply.result, dict) else None
        if value is None:
            return (
                revisions.default(self.name),
                f"status of a new session answered {reply.describe(80)}; the default revision",
            )
        return revisions.detect(value, self.name)

    @property
    def cwd(self) -> str:
        return self.harness.config.cwd

    @property
    def policy(self) -> AcpOptions:
        """The ACP target's options for this run: the protocol version and authentication method,
        and the agent's session policy as the run knows it (--memory-cap, --idle-evict-after,
        what discovery found)."""
        found = self.harness.config.target_options
        if not isinstance(found, AcpOptions):  # a config built without configure(), as in replays
            found = self.harness.config.target_options = AcpOptions()
        return found

    @property
    def settle(self) -> float:
        return self.harness.config.settle

    async def quiet(self, sessions: set[str], *, period: float | None = None) -> bool:
        """Wait until no notification about ``sessions`` has arrived for a while (at least QUIET,
        or five times --settle, or ``period``), at most --timeout: True once it is quiet. Agents send updates of
        their own a moment after an answer; a status case that counts notifications starts its
        window after them, or it would blame status for them. Only the case's own sessions count:
        what other sessions (earlier cases') keep sending cannot hold a case's judgement off."""

        def count() -> int:
            return sum(1 for n in self.peer.notifications if session_of(n.params) in sessions)

        period = max(QUIET, 5 * self.settle, period or 0.0)
        if anyio.current_time() - self.peer.last_frame_at >= period:
            return True  # nothing came or went for a period already (a case's wait ended just now)
        deadline = anyio.current_time() + self.harness.config.timeout
        seen = count()
        while True:
            await anyio.sleep(period)
            now = count()
            if now == seen:
                return True
            if anyio.current_time() > deadline:
                return False
            seen = now

    # -- handshake -----------------------------------------------------------------------------

    @property
    def protocol(self) -> int:
        """The ACP version the run speaks (--protocol)."""
        return self.policy.protocol

    async def handshake(self) -> dict[str, Any]:
        params = initialize_params(self.client_profile, self.protocol, PROTOCOL_VERSION, CLIENT_INFO)
        self.editor_files = EditorFiles() if self.client_profile == EDITOR and self.protocol == 1 else None
        if self.editor_files is not None:
            self.peer.answer = self.editor_files.answer
        reply = await self.peer.request("initialize", params)
        if not reply.ok:
            raise HarnessError(f"the agent answered initialize with {reply.describe()}")
        if not isinstance(reply.result, dict):
            raise HarnessError(f"the agent answered initialize with a non-object result: {reply.describe()}")
        version = reply.result.get("protocolVersion")
        if version != self.protocol:
            raise HarnessError(
                f"the agent answered initialize with protocolVersion {version!r}; this run checks ACP "
                f"v{self.protocol} (protocolVersion {self.protocol}; --protocol chooses 1 or 2)"
            )
        self.init_result = reply.result
        method = self.policy.auth_method
        if method:
            auth = await self.peer.request("authenticate", {"methodId": method})
            if not auth.ok:
                raise HarnessError(f"authenticate with method {method!r} failed: {auth.describe()}")
        elif self.init_result.get("authMethods"):
            # An agent that offers authentication may require it: then nothing can be tested, and
            # the run says what to pass before any case (one session/new tells).
            probe = await self.peer.request("session/new", {"cwd": self.cwd, "mcpServers": []})
            if probe.code == AUTH_REQUIRED:
                raise HarnessError(self.auth_hint(probe))
        return self.init_result

    # -- capabilities --------------------------------------------------------------------------

    def said(self) -> dict[str, Any]:
        """initialize's answer, once it came (the handshake may stop after it)."""
        return dict(self.init_result)

    def advertisement_known(self) -> bool:
        """Whether initialize has answered: what the agent advertises is known from it alone, even
        if the handshake stopped after it (authentication, a slow session/new)."""
        return bool(self.init_result)

    @property
    def agent_capabilities(self) -> dict[str, Any]:
        caps = self.init_result.get("capabilities" if self.protocol == 2 else "agentCapabilities")
        return caps if isinstance(caps, dict) else {}

    @property
    def session_capabilities(self) -> dict[str, Any]:
        caps = self.agent_capabilities.get("session" if self.protocol == 2 else "sessionCapabilities")
        return caps if isinstance(caps, dict) else {}

    @property
    def status_capability(self) -> Any:
        return self.session_capabilities.get("status", MISSING)

    def advertises(self, name: str) -> bool:
        if name in ("v1", "v2"):
            return name == f"v{self.protocol}"
        if name == "frames":  # any bytes as a frame: stdio lines and WebSocket text frames carry them
            return self.harness.config.transport != "http"
        if self.protocol == 2 and name in ("close", "list", "resume", "persist", "resume-or-load"):
            # v2: a `session` capability object means the baseline session methods, resume included.
            return "session" in self.agent_capabilities and isinstance(
                self.agent_capabilities["session"], dict
            )
        if name == "status":
            return self.status_capability not in (MISSING, None)
        if name == "no-status":
            return not self.advertises("status")
        if name == "load":
            return self.agent_capabilities.get("loadSession") is True
        if name in ("persist", "resume-or-load"):
            return self.advertises("resume") or self.advertises("load")
        value = self.session_capabilities.get(name)
        return value is not None and value is not False

    def capability_name(self, name: str) -> str:
        """Where the capability a case needs is advertised, as this protocol version spells it."""
        if self.protocol == 2:
            if name in ("status", "delete"):
                return f"capabilities.session.{name}"
            return "capabilities.session (the v2 session methods)"
        if name in ("persist", "resume-or-load"):
            return "agentCapabilities.loadSession or agentCapabilities.sessionCapabilities.resume"
        if name == "load":
            return "agentCapabilities.loadSession"
        return f"agentCapabilities.sessionCapabilities.{name}"

    @property
    def agent_info(self) -> Any:
        return self.init_result.get("agentInfo") or self.init_result.get("info")

    # -- raw calls -----------------------------------------------------------------------------

    async def call(
        self, method: str, params: Any = None, *, timeout: float | None = None, reuse_id: int | None = None
    ) -> Reply:
        reply = await self.peer.request(method, params, timeout=timeout, reuse_id=reuse_id)
        asked = params.get("sessionId") if isinstance(params, dict) else None
        if method == self.status_method and isinstance(asked, str) and says_no_turn(reply):
            self.no_turn_said[asked] = anyio.current_time()
        return reply

    async def status(self, session_id: Any) -> Reply:
        return await self.call("session/status", {"sessionId": session_id})

    @staticmethod
    async def together(*calls: Callable[[], Awaitable[T]]) -> list[T]:
        """Run the calls at once, started in this order: each request is on the wire before the
        first answer is read (they overlap, as a client's pipelined requests do). Their results
        in the same order: JSON-RPC does not order the answers, each is matched by its id."""
        results: list[Any] = [None] * len(calls)

        async def run(i: int) -> None:
            results[i] = await calls[i]()

        async with anyio.create_task_group() as tg:
            for i in range(len(calls)):
                tg.start_soon(run, i)
        return results

    async def statuses(self, session_ids: list[Any]) -> list[Reply]:
        """session/status for each id, all in flight at once (see :meth:`together`)."""
        return await self.together(*(lambda sid=sid: self.status(sid) for sid in session_ids))

    # -- lifecycle: prerequisites --------------------------------------------------------------

    def creation_parameters(self, cwd: str) -> dict[str, Any]:
        """session/new's params with a value for the optional parameters the schema names: an MCP
        server over stdio the suite provides (every agent MUST support that transport; it starts in
        a moment and answers the MCP handshake), a `_meta`, and `additionalDirectories` where the
        agent advertises them."""
        params: dict[str, Any] = {
            "cwd": cwd,
            "mcpServers": [
                {
                    "name": "session-status-conformance-stub",
                    "command": os.path.abspath(sys.executable),
                    "args": [os.path.abspath(mcp_stub.__file__)],
                    "env": [{"name": "SESSION_STATUS_CONFORMANCE", "value": "1"}],
                }
            ],
            "_meta": {"sessionStatusConformance": {"createdWith": "optional parameters"}},
        }
        if self.protocol == 1 and self.advertises("additionalDirectories"):
            if self._additional_directory is None:
                # The user's directory is left as it was: a folder of the run's own, made once.
                try:
                    self._additional_directory = tempfile.mkdtemp(prefix="session-status-conformance-")
                except OSError:
                    self._additional_directory = ""
            if self._additional_directory:
                params["additionalDirectories"] = [self._additional_directory]
        return params

    async def create(self, cwd: str | None = None, *, varied: bool = False) -> Reply:
        """session/new's answer. ``varied``: created with the optional parameters
        (:meth:`creation_parameters`); where the agent refuses them (an MCP server it cannot start),
        with the defaults, and :meth:`creation_details` says so."""
        reply = await self._create(cwd, varied)
        sid = reply.result.get("sessionId") if reply.ok and isinstance(reply.result, dict) else None
        if isinstance(sid, str):
            self.created.append(sid)
        return reply

    async def _create(self, cwd: str | None, varied: bool) -> Reply:
        where = cwd or self.cwd
        if varied:
            params = self.creation_parameters(where)
            reply = await self.call("session/new", params)
            sid = reply.result.get("sessionId") if reply.ok and isinstance(reply.result, dict) else None
            if isinstance(sid, str):
                self.created_with[sid] = sorted(k for k in params if k != "cwd")
                return reply
            if reply.code == AUTH_REQUIRED or self.peer.exited is not None:
                return reply
            self.creation_refused = reply.describe(160)
        return await self.call("session/new", {"cwd": where, "mcpServers": []})

    def creation_details(self, *sids: str) -> dict[str, Any]:
        """For a case's details: which of its sessions were created with the optional parameters."""
        shown: dict[str, Any] = {sid: self.created_with[sid] for sid in sids if sid in self.created_with}
        if self.creation_refused:
            shown["refused"] = (
                f"session/new with them answered {self.creation_refused}; created with the defaults"
            )
        return shown

    async def new_session(self, cwd: str | None = None, *, varied: bool = False) -> str:
        """A fresh session (``varied``: created with the optional parameters, see :meth:`create`).
        A session/new that fails before the case has asked status is a precondition not made (not
        testable: the status specs say nothing of session/new); after a status call it is a
        prerequisite the agent advertised that broke (NotTestable)."""
        reply = await self.create(cwd, varied=varied)
        sid = reply.result.get("sessionId") if reply.ok and isinstance(reply.result, dict) else None
        if not isinstance(sid, str):
            if reply.code == AUTH_REQUIRED:
                raise MissingInput(self.auth_hint(reply))
            if not self.harness.status_asked():
                raise Unprepared(f"session/new did not create a session: {reply.describe(200)}")
            raise NotTestable(f"session/new did not create a session: {reply.describe()}")
        return sid

    def auth_hint(self, reply: Reply) -> str:
        """What to pass when session/new answers auth_required (the schema's -32000: "May return an
        `auth_required` error if the agent requires authentication"). The suite's hint first, then
        the agent's answer, shortened: a long answer never hides what to pass."""
        offered = (self.init_result or {}).get("authMethods")
        ids = [m.get("id") for m in offered if isinstance(m, dict)] if isinstance(offered, list) else []
        choices = f" (it offers: {shorten(', '.join(str(i) for i in ids[:10]), 120)})" if ids else ""
        given = self.policy.auth_method
        hint = f"--auth-method {given!r} did not satisfy it" if given else f"pass --auth-method ID{choices}"
        return f"the agent requires authentication; {hint}; session/new answered {reply.describe(120)}"

    async def close(self, session_id: str) -> None:
        reply = await self.call("session/close", {"sessionId": session_id})
        if not reply.ok:
            raise NotTestable(f"session/close of {session_id!r} failed: {reply.describe()}")

    async def load_replay(self, session_id: str, cwd: str | None = None) -> tuple[Reply, list[Any]]:
        """session/load (v1), and the session/update notifications it replayed for the session
        before its response (the history as a client sees it: by the order the frames arrived,
        so an update that came after the answer is not counted, however soon). Over Streamable
        HTTP the answer and the updates come on two streams whose frames interleave in any order:
        there, what had come by the time the answer was read."""
        mark = len(self.peer.notifications)
        params = {"sessionId": session_id, "cwd": cwd or self.cwd, "mcpServers": []}
        reply = await self.call("session/load", params)
        ordered = self.frames_ordered and reply.index >= 0
        updates = [
            n.params.get("update")
            for n in self.peer.notifications[mark:]
            if n.method == "session/update"
            and session_of(n.params) == session_id
            and (not ordered or n.index < reply.index)
        ]
        return reply, updates

    @property
    def frames_ordered(self) -> bool:
        """Whether the connection carries the agent's answers and notifications in one stream, in
        the order it sent them (stdio, WebSocket), so a notification's place against an answer is
        the agent's own; over Streamable HTTP they come on separate streams."""
        return self.harness.config.transport != "http"

    async def reopen(self, session_id: str, cwd: str | None = None) -> Reply:
        """session/resume if advertised (always in v2), else session/load: the way back into a session."""
        params = {"sessionId": session_id, "cwd": cwd or self.cwd, "mcpServers": []}
        return await self.call("session/resume" if self.advertises("resume") else "session/load", params)

    @property
    def turn_timeout(self) -> float:
        """The turn clock (--turn-timeout): how long a turn and what it sets off may take."""
        return self.harness.config.turn_timeout

    def take_turn(self) -> None:
        """Count a prompt about to be sent (--max-prompts): NoTurn, which makes the case not
        testable, when the run's budget is spent or turns did not end in the cases before. A case
        that sends a prompt together with other calls takes its turn before it sends any of them
        (and passes ``taken=True`` to :meth:`prompt`): a prompt the suite may not send then leaves
        no call of the case behind unanswered."""
        self.harness.take_turn()

    async def prompt(
        self,
        session_id: str,
        text: str = "ping",
        *,
        wait: bool = True,
        timeout: float | None = None,
        taken: bool = False,
        blocks: tuple[dict[str, Any], ...] = (),
    ) -> Reply:
        """session/prompt: a turn. Every prompt the suite sends goes through here: it is counted
        (--max-prompts; a case that needs one more is not testable; ``taken``: counted already,
        by :meth:`take_turn`) and waits on the turn clock (--turn-timeout, or ``timeout``), since a
        real agent's turn is a model call. In v2 the response only acknowledges the prompt: with
        ``wait``, this also waits (on the turn clock) for the `state_update` that reports the turn
        `idle`; a turn that reports none in time ends the case, as a prompt left unanswered does.
        ``blocks``: content blocks sent after the text (a resource_link, say)."""
        if not taken:
            self.harness.take_turn()
        mark = len(self.peer.notifications)
        self.prompted_at[session_id] = anyio.current_time()
        reply = await self.peer.request(
            "session/prompt",
            {"sessionId": session_id, "prompt": [{"type": "text", "text": text}, *blocks]},
            timeout=self.turn_timeout if timeout is None else timeout,
            clock="turn",
        )
        if self.protocol == 2 and wait and reply.ok:
            ended = await self.wait_state(session_id, "idle", since=mark)
            if ended is None and self.peer.exited is None:
                why = f"its turn reported no `idle` state_update within {self.turn_timeout:g} s (--turn-timeout)"
                if self.turn_over_said(session_id):
                    why = (
                        "its turn reported no `idle` state_update, though its status answer said no turn was going "
                        f"(waited {self.harness.config.timeout:g} s, --timeout, after that)"
                    )
                raise Unanswered("session/prompt", reply.id, self.turn_timeout, clock="turn", why=why)
        self.turn_ends[session_id] = anyio.current_time()
        return reply

    def twin_lag(self, twins: dict[str, str]) -> float:
        """How much later, at most, each control's turn ended than its twin's (seconds; 0 when
        they had none). Twins are treated alike one right after the other, so what a model call
        sends a while after a turn (a title) reaches the control about this much later: at real
        agents' speed, a whole turn later."""
        lags = [
            self.turn_ends[control] - self.turn_ends[asked]
            for asked, control in twins.items()
            if asked in self.turn_ends and control in self.turn_ends
        ]
        return max([0.0, *lags])

    def state_reached(
        self, session_id: str, state: str, *, since: int, ending: bool = False
    ) -> dict[str, Any] | None:
        """The first `state_update` to ``state`` for the session after notification ``since``, if any
        yet; with ``ending``, the first that ends a turn (it carries a stopReason)."""
        for note in self.peer.notifications[since:]:
            update = state_update(note.params)
            if not update or session_of(note.params) != session_id or update.get("state") != state:
                continue
            if not ending or update.get("stopReason") is not None:
                return update
        return None

    async def wait_state(
        self, session_id: str, state: str, *, since: int, ending: bool = False
    ) -> dict[str, Any] | None:
        """:meth:`state_reached`, waiting for it on the turn clock (--turn-timeout): a turn's states
        come as the model works."""
        with anyio.move_on_after(self.turn_timeout) as clock:
            while self.peer.exited is None:  # a dead agent sends no more updates
                if (update := self.state_reached(session_id, state, since=since, ending=ending)) is not None:
                    return update
                self.end_wait_on_evidence(clock, session_id)
                await anyio.sleep(0.005)
        self._ran_out(clock, session_id)
        return None

    def _ran_out(self, clock: anyio.CancelScope, session_id: str) -> None:
        if clock.cancelled_caught and self.peer.exited is None and not self.turn_over_said(session_id):
            if session_id not in self.ran_out:  # a later, shortened wait for it is no second turn clock
                self.harness.turn_ran_out()
            self.ran_out.add(session_id)

    def turn_over_said(self, session_id: str) -> bool:
        """Whether the agent itself said, since the session's last prompt, that no turn is going
        (a status answer: v2 `idle`, inactive, an error): a turn it ended, cancelled or abandoned."""
        prompted = self.prompted_at.get(session_id)
        said = self.no_turn_said.get(session_id)
        return prompted is not None and said is not None and said > prompted

    def end_wait_on_evidence(self, clock: anyio.CancelScope, session_id: str) -> None:
        """A wait for the turn's update ends within --timeout once the agent has said its turn is
        over: a turn it ended, cancelled or abandoned is evidence, not a reason to wait out the
        turn clock (the update that says so may still be on its way: the request clock's worth).
        So does a wait for a turn that already outlived one whole turn clock in vain."""
        if self.turn_over_said(session_id):
            clock.deadline = min(clock.deadline, self.no_turn_said[session_id] + self.harness.config.timeout)
        elif session_id in self.ran_out:  # its turn outlived the turn clock once already
            clock.deadline = min(clock.deadline, anyio.current_time() + self.harness.config.timeout)

    async def wait_turn_end(self, session_id: str, *, since: int) -> dict[str, Any] | None:
        """The `state_update` that ends a v2 turn, waiting on the turn clock (--turn-timeout): the
        first `idle` one that carries a stopReason, or, since the stopReason is only a SHOULD, an
        `idle` one after which the session goes quiet."""
        with anyio.move_on_after(self.turn_timeout) as clock:
            while self.peer.exited is None:
                if (ending := self.state_reached(session_id, "idle", since=since, ending=True)) is not None:
                    return ending
                plain = self.state_reached(session_id, "idle", since=since)
                if plain is not None and await self.quiet({session_id}):
                    return self.state_reached(session_id, "idle", since=since, ending=True) or plain
                self.end_wait_on_evidence(clock, session_id)
                await anyio.sleep(0.005)
        self._ran_out(clock, session_id)
        return None

    async def list_sessions(self) -> dict[str, dict[str, Any]]:
        """All listed sessions by id (following cursors, bounded)."""
        found: dict[str, dict[str, Any]] = {}
        cursor: str | None = None
        for _ in range(100):
            params: dict[str, Any] = {"cwd": self.cwd}
            if cursor:
                params["cursor"] = cursor
            reply = await self.call("session/list", params)
            if not reply.ok or not isinstance(reply.result, dict):
                raise NotTestable(f"session/list failed: {reply.describe()}")
            for entry in reply.result.get("sessions") or []:
                if isinstance(entry, dict) and isinstance(entry.get("sessionId"), str):
                    found[entry["sessionId"]] = entry
            cursor = reply.result.get("nextCursor")
            if not cursor:
                return found
        raise MissingInput(
            "session/list kept returning nextCursor after 100 pages: the list cannot be read whole"
        )

    async def inactive_session(self) -> str:
        """A session the agent knows but does not hold: closed if it can, else after a restart."""
        (sid,) = await self.inactive_sessions(1)
        return sid

    async def inactive_sessions(self, count: int) -> list[str]:
        """``count`` sessions made inactive alike, one right after the other (a case's asked
        session and its control: conformance.targets.acp.controls); one restart for all of them
        where the agent cannot close."""
        sids = await self.prompted_sessions(count, "remember this")
        for sid in sids:
            if self.advertises("close"):
                await self.close(sid)
        if not self.advertises("close"):
            await self.restart()
        return sids

    async def prompted_sessions(self, count: int, text: str = "hello") -> list[str]:
        """``count`` new sessions, each given one turn, one right after the other."""
        sids = [await self.new_session() for _ in range(count)]
        for sid in sids:
            await self.prompt(sid, text)
        return sids

    async def restart(self) -> None:
        if not self.harness.config.restartable:
            raise MissingInput(
                "needs to restart the agent: start it with --agent CMD (and --transport websocket) "
                "instead of --agent-url"
            )
        await self.harness.restart_agent()

    @staticmethod
    def unknown_id() -> str:
        return f"sess_never_created_{uuid.uuid4().hex}"


def says_no_turn(reply: Reply) -> bool:
    """Whether a status answer says the session has no turn going: the v2 snapshot `idle`, the
    session not in memory (inactive), or no such session (-32002)."""
    if not reply.ok:
        return reply.code == SESSION_NOT_FOUND
    result = reply.result if isinstance(reply.result, dict) else {}
    state = result.get("state")
    if isinstance(state, dict) and state.get("state") == "idle":
        return True
    if revisions.checked() is None:  # the handshake's own status calls, before a revision is chosen
        return False
    return revisions.canonical(result.get("status")) == "inactive"


# pyright checks the class against the Protocol the harness drives targets by: a driver that drifts
# from it fails the type check (python -m tools.typecheck).
_DRIVES: type[Driver] = AcpTarget

"""What a target is, and what it may ask of the harness: the interfaces between them.

A *target* is one kind of system the suite certifies (a status method of some protocol). It
comes in two parts: its declaration (:class:`Target`: names, options, how its system is started),
which the command line, the plugin and the reports read, and its per-run :class:`Driver`, which
the harness (`conformance.runtime`) makes for a run and the cases speak to. A target knows the
harness only through :class:`Harness`. The list of targets is `conformance.targets.TARGETS`; a
target's cases are the package `conformance.cases.<name>` (or its own) and its spec revisions
name it in their `target` field.

Every member of :class:`Target` and :class:`Driver` without a default is required: what every
target must say. The optional hooks, each declared once with its docstring and its default, are
:class:`TargetHooks` (on the declaration) and :class:`DriverHooks` (on the driver): a target
subclasses them and overrides the hooks it needs, as a pytest plugin implements the hooks of
pytest's hookspec it needs. The harness reads every member directly, never by ``getattr``.
"""

from __future__ import annotations

import collections
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import anyio.abc

from conformance.reports.records import System

if TYPE_CHECKING:
    from conformance.core.config import AgentConfig
    from conformance.core.options import Option
    from conformance.core.outcomes import AgentExited
    from conformance.core.transcript import StderrTail, Transcript
    from conformance.transport.peer import EnvelopeProblem, JsonRpcPeer
    from conformance.transport.stdio import StdioProcess

__all__ = ["Connection", "Driver", "DriverHooks", "Harness", "Service", "System", "Target", "TargetHooks"]


class Connection(Protocol):
    """What the harness reads from a connection to the system under test after each case: whether
    it exited, the envelope problems it saw, and how many status requests it answered. A
    JSON-RPC peer is one; a target without JSON-RPC counts its own."""

    exited: AgentExited | None
    problems: list[EnvelopeProblem]
    reported: int  # problems already charged to a case
    answered: collections.Counter[str]  # requests answered in this case, by method
    # Requests sent in this case, by method: what tells whether a case asked status yet. A
    # connection without JSON-RPC requests may keep it empty (its cases never count as having asked).
    sent: collections.Counter[str]

    def new_case(self) -> None: ...


class Service(Protocol):
    """A started system under test: its process (if the suite started it), where it listens, and
    its main connection. Started with ``await task_group.start(service.run)``."""

    process: StdioProcess | None
    url: str | None
    extra_connections: list[JsonRpcPeer]  # opened by the current case; their problems count for it

    @property
    def connection(self) -> Connection:
        """The main connection (a property here: a service may keep a connection of its own kind)."""
        ...

    async def run(self, *, task_status: anyio.abc.TaskStatus[Any]) -> None: ...

    async def open_connection(self, label: str, tg: anyio.abc.TaskGroup) -> JsonRpcPeer: ...

    async def close_extra(self) -> None: ...

    def stop(self) -> None: ...


class Harness(Protocol):
    """What a target (and the cases through it) may ask of the harness."""

    config: AgentConfig
    transcript: Transcript
    stderr: StderrTail
    closing: bool  # the run is ending: worker threads (Hypothesis) stop at their next step

    @property
    def peer(self) -> JsonRpcPeer:
        """The main JSON-RPC connection (a HarnessError for a service that has none)."""
        ...

    @property
    def connection(self) -> Connection: ...

    @property
    def agent_alive(self) -> bool: ...

    async def restart_agent(self, before_handshake: Callable[[], Awaitable[None]] | None = None) -> None:
        """Stop the agent and start it again; ``before_handshake`` runs on the fresh connection
        before the handshake."""
        ...

    async def open_connection(self, label: str = "B") -> JsonRpcPeer:
        """Another connection to the same agent, closed when the case ends."""
        ...

    async def start_second_agent(self, label: str) -> JsonRpcPeer:
        """Another process of the agent's command (stdio), beside the main one, not initialized;
        stopped when the case ends."""
        ...

    async def stop_second_agents(self) -> None:
        """Stop the processes start_second_agent started (before the case ends)."""
        ...

    def note_problems(self, peer: JsonRpcPeer) -> None:
        """A connection the case opened itself: its envelope problems count for the case."""
        ...

    def current_url(self) -> str | None: ...

    def take_turn(self) -> None:
        """Before a prompt: count it against --max-prompts. Raises NoTurn (the case is not
        testable) when the run's prompt budget is spent or turns went unanswered case after case."""
        ...

    def turn_ran_out(self) -> None:
        """The current case waited the whole turn clock (--turn-timeout) for a turn's end that
        never came: counted as a turn that did not end (after a few cases in a row, the cases that
        prompt are not testable rather than wait it out again)."""
        ...

    def status_asked(self) -> bool:
        """Whether the current case has sent a status request yet (on any of its connections)."""
        ...


class DriverHooks:
    """The optional hooks of a :class:`Driver`, each with its default: a driver subclasses this
    class and overrides what its system can tell."""

    def said(self) -> dict[str, Any]:
        """What the handshake said so far, kept when a later step of it failed (an agent that
        requires authentication still said in its first answer what it advertises). Default:
        nothing."""
        return {}

    def advertisement_known(self) -> bool:
        """Whether what the system advertises is known from what the handshake said so far
        (:meth:`said`), even though the handshake stopped after it. Default: not known."""
        return False


class Driver(Protocol):
    """A target's driver for one run: it connects to the system under test and is what the
    target's cases are handed. Its optional hooks are :class:`DriverHooks`."""

    name: ClassVar[str]  # its target's name
    status_method: ClassVar[str]
    status_need: ClassVar[str]

    @staticmethod
    def replay_record(config: AgentConfig) -> dict[str, Any]:
        """What a replay file records of this run's config besides the command and working
        directory (a transport, a URL, its own options), for its target's ``replay_options``."""
        ...

    async def handshake(self) -> dict[str, Any]:
        """Connect and learn what it offers: what its target's ``describe`` reads."""
        ...

    def advertises(self, need: str, /) -> bool:
        """Whether it advertises what a case needs (a capability, a tool, a route)."""
        ...

    def capability_name(self, need: str, /) -> str:
        """Where ``need`` is advertised, as the protocol spells it (for "unimplemented")."""
        ...

    def is_status_call(self, method: str) -> bool: ...

    async def new_session(self) -> Any:
        """A fresh session (or principal) for a case: the target's own handle for it."""
        ...

    async def detect_revision(self) -> tuple[str, str]:
        """The spec revision this system speaks and why (--spec auto)."""
        ...

    # The optional hooks (DriverHooks), declared there with their defaults.
    def said(self) -> dict[str, Any]: ...

    def advertisement_known(self) -> bool: ...


class TargetHooks:
    """The optional hooks of a target's declaration, each with its default: a declaration
    subclasses this class and overrides what its system needs (the hooks are static: a
    declaration is a class, never instantiated)."""

    # The request that starts a turn of the system (a prompt: a model call for a real agent), or
    # None when it takes none. A target with turns gets the run's turn clock (--turn-timeout: how
    # long a turn, with the work it sets off, may take), its prompt budget (--max-prompts, counted
    # over the run's workers), and the report's count of prompts sent; its cases call the
    # harness's ``take_turn`` before each prompt and ``turn_ran_out`` when a turn never ended.
    turn_method: ClassVar[str | None] = None

    # Whether a run that names no target (no --target, none of its command or URL options)
    # certifies this one; one installed target may say so. Its reference is the run of the bare
    # command.
    default: ClassVar[bool] = False

    # The wire revisions a run may certify one after the other (the command line's "both" of a
    # protocol with several eras), each a value of the target's own protocol option, in order;
    # () when its protocol has one.
    wire_eras: ClassVar[tuple[str, ...]] = ()

    @staticmethod
    def describe(init: dict[str, Any]) -> System:
        """The system under test as its handshake (``Driver.handshake``'s answer, or what it said
        before it stopped) describes it: the report's ``system`` block, and the name its run's
        examples are kept under. Default: ``name``, ``version`` (or those of an ``info`` or
        ``serverInfo`` object), ``protocolVersion`` and ``capabilities`` of the answer."""
        info: Any = init.get("serverInfo") or init.get("info") or init
        info = info if isinstance(info, dict) else {}
        version = init.get("protocolVersion")
        return System(
            name=str(info.get("name") or "")[:100],
            version=str(info.get("version") or "")[:40],
            protocol="" if version is None else str(version)[:40],
            capabilities=init.get("capabilities"),
        )

    @staticmethod
    def not_applicable(missing: list[str], config: AgentConfig) -> str | None:
        """Why a case does not apply to this system, given the needs it lacks (e.g. a case of
        another protocol version than the run's), or None: then a lacking need is a capability not
        implemented. Default: None."""
        return None

    @staticmethod
    def configure(values: dict[str, Any], config: AgentConfig) -> Any:
        """Parse this target's option values (dest -> value) into its own options object, kept as
        ``config.target_options``; raises UsageError with a one-line message. Default: None (no
        options of its own beyond its command and URL)."""
        return None

    @staticmethod
    def secrets(config: AgentConfig) -> list[str]:
        """Option values to redact from every report (credentials in its options). Default: none."""
        return []

    @staticmethod
    def replay_options(data: dict[str, Any], config: AgentConfig) -> None:
        """Adjust ``config`` from what a replay file recorded (its driver's ``replay_record``).
        Default: nothing to adjust."""
        return None

    @staticmethod
    def replay_setup(data: dict[str, Any], config: AgentConfig) -> Callable[[Any], tuple[Any, list[Any]]]:
        """For one of its replay files: adjust ``config`` from what the file recorded, and return
        what replays its steps on a started target (in a worker thread): (failure or None, the
        steps as run). UsageError when it has no replay files of steps (the default: its cases'
        replay files hold one case's input, run again as that case)."""
        from conformance.core.config import UsageError

        raise UsageError(f"the {config.target} target has no replay files of steps")


class Target(Protocol):
    """One kind of system the suite certifies, as declared: its names, options, and how its system
    is started. ``driver`` drives one run's system. Its optional hooks are :class:`TargetHooks`."""

    name: ClassVar[str]  # --target's value and the package of its cases
    subject: ClassVar[str]  # what is certified, for people: "ACP session/status"
    noun: ClassVar[str]  # what its verdicts call the system under test: "agent", "server", "service"
    status_method: ClassVar[str]  # how its status request shows in transcripts ("session/status")
    status_need: ClassVar[str]  # the capability that status cases need
    option_group: ClassVar[str]  # the heading of its options in --help
    options: ClassVar[tuple[Option, ...]]  # its own command-line options
    command_option: ClassVar[str]  # the dest of the option that gives its command (e.g. "mcp_cmd")
    url_option: ClassVar[str]  # the dest of the option that gives its URL (e.g. "mcp_url")
    fixed_transport: ClassVar[str | None]  # a transport it always uses (HTTP: "http"), else None

    needs: ClassVar[frozenset[str]]  # what its cases may need (a case needing anything else is refused)
    # The requests that open a connection (a case's reproduction starts a segment at each), and
    # the one whose answer's sessionId names a new session (reproductions list them), if any.
    handshake_methods: ClassVar[tuple[str, ...]]
    session_method: ClassVar[str | None]
    spec_sources: ClassVar[dict[str, str]]  # the spec sources its revision files cite, by name: titles

    driver: ClassVar[Callable[[Harness], Driver]]  # the per-run driver, made with the run's harness

    @staticmethod
    def reference_command(transport: str, values: dict[str, Any]) -> list[str]:
        """The embedded reference implementation's command for this transport and the run's option
        values (dest -> value, the target's own among them); raises UsageError for what it cannot serve."""
        ...

    @staticmethod
    def service(config: AgentConfig, transcript: Transcript, stderr: StderrTail) -> Service:
        """How the system under test is started or connected to."""
        ...

    # The optional hooks (TargetHooks), declared there with their docstrings and defaults.
    turn_method: ClassVar[str | None]
    default: ClassVar[bool]
    wire_eras: ClassVar[tuple[str, ...]]

    @staticmethod
    def describe(init: dict[str, Any]) -> System: ...

    @staticmethod
    def not_applicable(missing: list[str], config: AgentConfig) -> str | None: ...

    @staticmethod
    def configure(values: dict[str, Any], config: AgentConfig) -> Any: ...

    @staticmethod
    def secrets(config: AgentConfig) -> list[str]: ...

    @staticmethod
    def replay_options(data: dict[str, Any], config: AgentConfig) -> None: ...

    @staticmethod
    def replay_setup(data: dict[str, Any], config: AgentConfig) -> Callable[[Any], tuple[Any, list[Any]]]: ...

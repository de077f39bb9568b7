"""One worker's runtime: an event loop thread, the agent process, and running cases on it.

pytest is synchronous and the harness is async, so each worker keeps one anyio loop in a
thread (a blocking portal) for its whole life. The agent process is started once per worker
and shared by cases that use fresh sessions; it is restarted only when a case asks for it or
after it died, so one crash cannot spoil the cases after it.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import dataclasses
import inspect
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.from_thread import start_blocking_portal

from conformance.core import examples_db, revisions
from conformance.core.case_clock import CASE_BUDGET, case_budget
from conformance.core.config import AgentConfig
from conformance.core.layers import stderr_layer
from conformance.core.outcomes import (
    AgentExited,
    CaseResult,
    HarnessError,
    NotApplicable,
    NoTurn,
    Outcome,
    RunInterrupted,
    Unanswered,
    Unimplemented,
    Violation,
    broken,
    classify,
    unanswered,
)
from conformance.core.registry import Case, Level
from conformance.core.traceability import Revision
from conformance.core.transcript import NOTE, RECV, SEND, Entry, StderrTail, Transcript
from conformance.targets import named
from conformance.targets.base import Connection, Driver, Service, Target
from conformance.targets.turns import Turns
from conformance.transport.peer import JsonRpcPeer

__all__ = ["CaseRecord", "Runtime"]

SILENT_CASES_LIMIT = 3  # cases in a row with an unanswered request: the rest are not run
STATUS_SILENT_LIMIT = 2  # cases in a row whose status request went unanswered: the status cases are not run
MAX_CASE_FRAMES = 2000


# The requests that open a connection: a reproduction's segment starts at one (MCP's stateless era
# opens with server/discover).
@dataclass
class CaseRecord:
    result: CaseResult
    duration: float
    transcript: list[dict[str, Any]] = field(default_factory=list)
    stderr: str = ""
    # What to pipe into the agent to see it again: segments, each for a fresh agent process (the
    # first, and one per restart the case made) started in the same working directory, or for a
    # second connection. Each starts with the handshake.
    reproduction: list[dict[str, Any]] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    revision: str = ""  # the spec revision the case was checked against ("": the default)


class Runtime:
    def __init__(
        self,
        config: AgentConfig,
        *,
        strict: bool = False,
        revision: str | None = None,
        declaration: type[Target] | None = None,
    ) -> None:
        self.config = config
        self.strict = strict
        # The spec revision this run checks: given, or resolved after the handshake (--spec, or
        # what the agent answers); until then, the one its caller's context checks.
        self.revision: Revision | None = revisions.get(revision) if revision else None
        self.transcript = Transcript()
        self.stderr = StderrTail()
        # The run's target, as the engine resolved it (once for the run), else from the config.
        self.declaration = declaration or named(config.target)
        self.target: Driver = self.declaration.driver(self)
        self._agent: Service | None = None
        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._tg: anyio.abc.TaskGroup | None = None
        self._root_future, _ = self._portal.start_task(self._root)
        # What the agent process the cases talk to got from its start until its handshake was
        # answered (frames sent before the handshake too): the prefix of a later case's reproduction.
        self.handshake_entries: list[Entry] = []
        # The transcript's mark at each start of an agent process: where a reproduction's segment for
        # a fresh or restarted process begins.
        self.process_starts: list[int] = []
        # Agent processes a case started beside the main one (start_second_agent), and their labels.
        self.second_agents: list[Service] = []
        self.second_labels: set[str] = set()
        self.pgids: list[int] = []
        self.closing = False
        self.started_at = time.monotonic()
        self.silent_cases = 0  # consecutive cases with a request the agent did not answer
        self.status_silent: list[str] = []  # the cases in a row whose status request went unanswered
        self.turns = Turns(
            self.declaration.turn_method, config.turn_timeout, config.max_prompts, config.prompt_ledger
        )
        # What the agent's handshake said, kept when a later step of the handshake failed (an agent
        # that requires authentication still said, in initialize, what it advertises).
        self.handshake_said: dict[str, Any] = {}
        self.agent_name = ""  # as its handshake gives it: part of the run's example-database keys
        self._restart_next = False
        self._running: concurrent.futures.Future[CaseRecord] | None = None

    async def _root(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        async with anyio.create_task_group() as tg:
            self._tg = tg
            task_status.started(None)
            await anyio.sleep_forever()

    # -- agent lifecycle -----------------------------------------------------------------------

    @property
    def connection(self) -> Connection:
        if self._agent is None:
            raise HarnessError("the agent is not running")
        return self._agent.connection

    @property
    def peer(self) -> JsonRpcPeer:
        connection = self.connection
        if not isinstance(connection, JsonRpcPeer):
            raise HarnessError(f"the {self.target.name} target has no JSON-RPC connection")
        return connection

    @property
    def agent_alive(self) -> bool:
        return self._agent is not None and self._agent.connection.exited is None

    async def start_agent(
        self, before_handshake: Callable[[], Awaitable[None]] | None = None
    ) -> dict[str, Any]:
        """``before_handshake``: what a case sends on the fresh connection before the target's
        handshake (a request a client should not send yet)."""
        assert self._tg is not None
        mark = self.transcript.mark()
        self.process_starts.append(mark)
        self._agent = service = self.declaration.service(self.config, self.transcript, self.stderr)
        await self._tg.start(service.run)
        if self._agent.process is not None and self._agent.process.pgid is not None:
            self.pgids.append(self._agent.process.pgid)
        try:
            if before_handshake is not None:
                await before_handshake()
            init = await self.target.handshake()
        except BaseException:
            self.handshake_said = self.target.said()
            raise
        finally:
            self.handshake_entries = self.transcript.since(mark)
        self.handshake_said = dict(init) if isinstance(init, dict) else {}
        self.agent_name = self.declaration.describe(init).name if isinstance(init, dict) else ""
        return init

    async def stop_agent(self) -> None:
        agent, self._agent = self._agent, None
        if agent is not None:
            await self._stopped(agent)

    @staticmethod
    async def _stopped(agent: Service) -> None:
        agent.stop()
        with anyio.move_on_after(15):
            while (
                agent.process is not None
                and agent.process.pid is not None  # a command that never started has nothing to wait for
                and (agent.process.returncode is None or agent.process._group_alive())
            ):
                await anyio.sleep(0.01)

    async def restart_agent(self, before_handshake: Callable[[], Awaitable[None]] | None = None) -> None:
        self.transcript.add(NOTE, "restarting the agent (same command and working directory)")
        await self.stop_agent()
        await self.start_agent(before_handshake)

    async def start_second_agent(self, label: str) -> JsonRpcPeer:
        """Another process of the agent's command in the same working directory, beside the one the
        cases talk to (stdio carries one client per process: a second editor starts its own); its
        frames labelled ``label``, its envelope problems counted for the case, stopped when the case
        ends. Not initialized: the caller's client says what it says."""
        assert self._tg is not None
        if not self.config.command or self.config.transport != "stdio":
            raise HarnessError("a second agent process needs an agent command on stdio")
        self.transcript.add(
            NOTE, f"starting a second agent process ({label}; same command and working directory)"
        )
        service = self.declaration.service(self.config, self.transcript, self.stderr)
        peer = service.connection
        if not isinstance(peer, JsonRpcPeer):
            raise HarnessError(f"the {self.target.name} target has no JSON-RPC connection")
        peer.transcript = self.transcript.for_connection(label)
        self.second_agents.append(service)
        self.second_labels.add(label)
        await self._tg.start(service.run)
        if service.process is not None and service.process.pgid is not None:
            self.pgids.append(service.process.pgid)
        self.note_problems(peer)
        return peer

    async def stop_second_agents(self) -> None:
        while self.second_agents:
            await self._stopped(self.second_agents.pop())

    async def open_connection(self, label: str = "B") -> JsonRpcPeer:
        """Another connection to the same agent; closed when the case ends."""
        if self._agent is None or self._tg is None:
            raise HarnessError("the agent is not running")
        return await self._agent.open_connection(label, self._tg)

    def current_url(self) -> str | None:
        return self._agent.url if self._agent is not None else None

    def note_problems(self, peer: JsonRpcPeer) -> None:
        """A connection the case opened itself: its envelope problems count for the case."""
        if self._agent is not None:
            self._agent.extra_connections.append(peer)

    # -- turns ---------------------------------------------------------------------------------

    def take_turn(self) -> None:
        """Before a prompt (the target's turn method): counted, or refused with NoTurn."""
        self.turns.take()

    def turn_ran_out(self) -> None:
        """The current case waited the whole turn clock for a turn's end that never came."""
        self.turns.ran_out()

    def status_asked(self) -> bool:
        if self._agent is None:
            return False
        method = self.target.status_method
        connections = [self._agent.connection, *self._agent.extra_connections]
        return any(c.sent[method] for c in connections)

    def call(self, func: Any, *args: Any) -> Any:
        """Run a function on the runtime's loop, in the run's revision, and wait for it (for tools
        and tests)."""
        return self._portal.call(self._checked, self.checked_revision(), func, *args)

    def checked_revision(self) -> Revision:
        """The run's revision; before it is chosen, the one its caller checks, else the target's default."""
        return self.revision or revisions.checked() or revisions.get(revisions.default(self.config.target))

    async def _checked(self, revision: Revision, func: Any, *args: Any) -> Any:
        token = revisions.checking(revision)
        try:
            result = func(*args)
            return await result if inspect.isawaitable(result) else result
        finally:
            revisions.reset(token)

    def start(self) -> dict[str, Any]:
        """Start the agent and initialize it (blocking); raises on a launch or handshake failure."""
        return self._portal.call(self.start_agent)

    def resolve_revision(self, spec: str) -> tuple[str, str]:
        """The revision this run checks and why (blocking; after start())."""
        return self._portal.call(self._resolve_revision, spec)

    async def _resolve_revision(self, spec: str) -> tuple[str, str]:
        target = self.config.target
        if spec != "auto":
            if revisions.get(spec).target != target:
                raise HarnessError(
                    f"--spec {spec} is a revision of the {revisions.get(spec).target} target; this run certifies "
                    f"{target}: use one of auto, {', '.join(revisions.available(target))}"
                )
            self.revision = revisions.get(spec)
            return spec, f"chosen with --spec {spec}"
        try:
            name, why = await self.target.detect_revision()
        except Unanswered as exc:  # the status cases will meet it too; they stop after one more
            if self.target.is_status_call(exc.method):
                self.status_silent.append("the spec revision detection")
            self._restart_next = self.config.restartable
            name, why = (
                revisions.default(target),
                f"could not ask the agent ({exc.describe()}); the default revision",
            )
        except Exception as exc:  # the cases will say what is wrong; detection only picks a revision
            name, why = revisions.default(target), f"could not ask the agent ({exc}); the default revision"
        finally:
            # Envelope problems of this exchange are the cases' to find (they send the same
            # requests); charged to whichever case came first, they would blame the wrong one.
            connection = self.connection
            connection.reported = len(connection.problems)
        self.revision = revisions.get(name)
        return name, why

    def close(self) -> None:
        self.closing = True  # worker threads (Hypothesis) stop at their next step
        with contextlib.suppress(Exception):
            self._portal.call(self.stop_agent)
        with contextlib.suppress(Exception):
            self._portal.call(self._cancel_root)
        with contextlib.suppress(BaseException):
            self._portal_cm.__exit__(None, None, None)

    async def _cancel_root(self) -> None:
        if self._tg is not None:
            self._tg.cancel_scope.cancel()

    # -- running cases -------------------------------------------------------------------------

    def run_case(self, case: Case) -> CaseRecord:
        revision = self.checked_revision()
        self._running = self._portal.start_task_soon(self._checked, revision, self._run_case, case)
        record = self._running.result()
        record.revision = record.revision or revision.name
        return record

    def interrupt(self, wait: float = 3.0) -> None:
        """Ctrl-C reached the main thread while a case runs on the portal: stop the case's worker
        threads and wait (bounded) for it to end. Only then may the main thread format tracebacks:
        Hypothesis changes the recursion limit in those threads, and CPython 3.11's ast.parse in
        the main thread meanwhile fails with "AST constructor recursion depth mismatch"."""
        self.closing = True
        if self._running is not None:
            concurrent.futures.wait([self._running], timeout=wait)

    async def _run_case(self, case: Case) -> CaseRecord:
        started = time.perf_counter()
        held_back = self._not_run(case)
        if held_back is not None:
            return CaseRecord(CaseResult(Outcome.NOT_TESTABLE, held_back), 0.0)
        if not self.agent_alive or self._restart_next:
            self._restart_next = False
            try:
                if self._agent is not None:
                    await self.stop_agent()
                await self.start_agent()
            except BaseException as exc:
                result = CaseResult(Outcome.ERROR, f"could not (re)start the agent: {exc}")
                return CaseRecord(result, time.perf_counter() - started, stderr=self.stderr.text()[-2000:])
        mark, err_mark = self.transcript.mark(), self.stderr.mark()
        handshake = list(self.handshake_entries)  # the start this case begins with
        self.connection.new_case()
        self.turns.new_case()
        details: dict[str, Any] = {}
        exc = await self._call_case(case, details)
        with anyio.CancelScope(shield=True):
            if self._agent is not None:
                await self._agent.close_extra()
            await self.stop_second_agents()
        if self.turns.case_prompts:
            details["prompts"] = self.turns.case_prompts
        result = self._judge(case, exc, err_mark)
        result, offending, noise = self._apply_envelope_problems(case, result, mark)
        if result.unprepared:
            details["unprepared"] = True
        if offending:
            details["offending_frames"] = offending
        if noise:
            details["stdout_noise"] = noise
        self._count_silence(case, exc)
        entries = self._case_entries(case, mark, handshake, details)
        record = CaseRecord(
            result=result,
            duration=time.perf_counter() - started,
            transcript=[e.to_json() for e in entries],
            stderr=self.stderr.since(err_mark)[-4000:],
            reproduction=reproduction(
                handshake,
                entries,
                self.declaration.handshake_methods,
                self.declaration.session_method,
                self.process_starts,
                self.second_labels,
            ),
            details=details,
            revision=revisions.current().name,
        )
        self.second_labels.clear()  # a later case's label of that name may be a connection, not a process
        if isinstance(exc, AgentExited) or not self.agent_alive:
            record.details.setdefault("agent_exited", True)
        if (
            self._agent is not None
            and self._agent.process is not None
            and self._agent.process.pgid is not None
        ):
            record.details["agent_pgid"] = self._agent.process.pgid
        return record

    def _not_run(self, case: Case) -> str | None:
        """Why the case is not run at all (not testable), or None: the run's budget is spent, or
        the agent left requests unanswered case after case."""
        spent = time.monotonic() - self.started_at
        if spent > self.config.run_budget:
            return (
                f"not run: the run budget of {self.config.run_budget:g} s was spent (the agent's turns included); "
                "a larger --run-budget runs it"
            )
        if self.silent_cases >= SILENT_CASES_LIMIT:
            return (
                f"not run: the agent left a request unanswered in {self.silent_cases} cases in a row "
                "(it hangs, or sends frames the suite cannot read)"
            )
        if len(self.status_silent) >= STATUS_SILENT_LIMIT and self.target.status_need in case.needs:
            return (
                f"not run: {self.target.status_method} went unanswered in {len(self.status_silent)} cases in a "
                f"row ({', '.join(self.status_silent)}), so every case that asks it would only wait out "
                f"--timeout again; see those cases' transcripts"
            )
        return None

    async def _call_case(self, case: Case, details: dict[str, Any]) -> BaseException | None:
        """The case run on the driver, if what it needs is advertised and its revision has it:
        what it raised (every exception is an outcome), or None."""
        try:
            missing = [n for n in case.needs if not self.target.advertises(n)]
            undeclared = sorted(set(case.needs) - self.declaration.needs)
            if undeclared:
                raise HarnessError(
                    f"the case needs {undeclared}, which the {case.target} target does not declare"
                )
            why = self.declaration.not_applicable(missing, self.config) if missing else None
            if why is not None:
                raise NotApplicable(why)
            if missing:
                names = ", ".join(self.target.capability_name(m) for m in missing)
                raise Unimplemented(f"the agent does not advertise {names}")
            revision = revisions.current()
            if revision.spec_for(case.id) is None:
                why = revision.not_part.get(case.id, revision.title)
                raise NotApplicable(f"not part of spec revision {revision.name}: {why}")
            scope = examples_db.case_scope(
                case.target,
                revision.name,
                case.id,
                database=self.config.example_database,
                agent=self.agent_name,
            )
            try:
                limit = max(CASE_BUDGET, 2 * self.config.turn_timeout)
                with case_budget(limit), anyio.fail_after(limit):
                    await case.func(self.target, details)
            finally:
                examples_db.scope_reset(scope)
        except TimeoutError as e:
            return e
        except RunInterrupted:
            return HarnessError("not finished: the run was interrupted")
        except (Unanswered, NoTurn) as e:
            return e
        except BaseExceptionGroup as group:  # a case's own task group: its most telling member
            exc = _telling(group)
            if isinstance(exc, RunInterrupted):
                return HarnessError("not finished: the run was interrupted")
            return exc
        except Exception as e:  # every exception is an outcome
            return e
        return None

    def _judge(self, case: Case, exc: BaseException | None, err_mark: int) -> CaseResult:
        """The case's outcome from what it raised."""
        if isinstance(exc, Unanswered):
            result = unanswered(
                exc,
                case.level,
                on_status=self.target.is_status_call(exc.method),
                status_asked=self.status_asked(),
                strict=self.strict,
            )
        elif isinstance(exc, AgentExited) and exc.method and self.target.is_status_call(exc.method):
            result = self._died_answering(case, exc, self.stderr.since(err_mark))
        else:
            result = classify(exc, case.level, strict=self.strict)
            ended = (
                self._status_unanswered(case, exc.__cause__, err_mark) if isinstance(exc, Violation) else None
            )
            if ended is not None and ended.outcome is Outcome.FAIL and result.outcome is not Outcome.FAIL:
                # A finding a SHOULD case kept (Problems.kept) does not hide a status request then
                # left unanswered: that is the method's own MUST, whatever the case's level.
                result = dataclasses.replace(
                    result, outcome=Outcome.FAIL, message=f"{result.message}; then {ended.message}"
                )
        exited = self._agent.connection.exited if self._agent is not None else None
        if result.outcome is Outcome.ERROR and exited is not None and "exited" not in result.message:
            # e.g. Hypothesis calls a run "flaky" when the agent died under it: say what happened.
            result = CaseResult(
                Outcome.ERROR,
                f"agent exited with code {exited.code} (the case was at: {result.message[:200]})",
            )
        return result

    def _status_unanswered(self, case: Case, cause: BaseException | None, err_mark: int) -> CaseResult | None:
        """The outcome of a status request that a kept finding's Violation ended on (its cause),
        judged as if the case had ended there; None where the cause is something else."""
        if isinstance(cause, Unanswered) and self.target.is_status_call(cause.method):
            return unanswered(cause, case.level, on_status=True, status_asked=True, strict=self.strict)
        if isinstance(cause, AgentExited) and cause.method and self.target.is_status_call(cause.method):
            return self._died_answering(case, cause, self.stderr.since(err_mark))
        return None

    def _case_entries(
        self, case: Case, mark: int, handshake: list[Any], details: dict[str, Any]
    ) -> list[Any]:
        """The transcript entries the case's record shows: a sequence's minimal run, the last
        MAX_CASE_FRAMES, and the handshake before them where the case shows it."""
        entries = self.transcript.since(mark)
        steps = details.get("steps")
        if steps is not None:  # a sequence case: its transcript is the minimal sequence's frames
            index = {e.index: e for e in entries}
            entries = [
                index[f["index"]] for s in steps for f in s.get("frames", []) if f.get("index") in index
            ]
        if len(entries) > MAX_CASE_FRAMES:
            details["transcript_truncated"] = f"{len(entries) - MAX_CASE_FRAMES} earlier frames dropped"
            entries = entries[-MAX_CASE_FRAMES:]
        if case.shows_handshake:
            entries = [e for e in handshake if e.index < mark] + entries
        return entries

    def _died_answering(self, case: Case, exc: AgentExited, stderr: str) -> CaseResult:
        """The agent died on a status request the case sent: the request is never answered, as
        JSON-RPC's "MUST reply" and the status method need (a crash elsewhere stays an error)."""
        level = Level.ROBUSTNESS if case.level is Level.ROBUSTNESS else Level.MUST
        layer = stderr_layer(stderr)
        return CaseResult(
            broken(level, strict=self.strict),
            f"the agent exited with code {exc.code} while answering {exc.method}"
            + (f"; the crash is {layer}" if layer else "")
            + (f"; its stderr since the case began: {stderr.strip()[-600:]}" if stderr.strip() else ""),
            expected="a response",
            observed=f"exit code {exc.code}",
            spec_key="reply",
        )

    def _count_silence(self, case: Case, exc: BaseException | None) -> None:
        """Silence is counted by the kind of request that went unanswered: a turn that did not
        end skips only the cases that prompt (at their first prompt), a status request only the
        status cases, and another request every case (each sends some)."""
        answered = self._agent.connection.answered if self._agent is not None else collections.Counter()
        turn = self.turns.end_case(case.id, isinstance(exc, Unanswered) and exc.clock == "turn", answered)
        silent = isinstance(exc, Unanswered | TimeoutError) and not turn
        # A robustness case's malformed frames may leave the agent silent: a finding of that case,
        # which decides nothing, so where the next case gets a fresh process it skips none.
        provoked = case.level is Level.ROBUSTNESS and self.config.restartable
        if not provoked:
            self.silent_cases = self.silent_cases + 1 if silent else 0
            if isinstance(exc, Unanswered) and self.target.is_status_call(exc.method):
                self.status_silent.append(case.id)
            elif answered[self.target.status_method]:
                self.status_silent.clear()
        # The agent is in a state nobody knows (a request or a turn still hangs in it): the next
        # case gets a fresh process, as after a crash.
        self._restart_next = (silent or turn) and self.config.restartable

    def _apply_envelope_problems(
        self, case: Case, result: CaseResult, mark: int
    ) -> tuple[CaseResult, list[int], list[int]]:
        """Broken messages that arrived during the case fail it where they happened, quoting the
        envelope rule (not the case's sentence); lines that are no message at all (a banner, a log
        line) are listed as stdout noise, a robustness finding of the transport case. The
        handshake's problems belong to the cases that show the handshake."""
        if self._agent is None:
            return result, [], []
        problems = []
        for connection in [self._agent.connection, *self._agent.extra_connections]:  # B's frames count too
            problems += connection.problems[connection.reported :]
            connection.reported = len(connection.problems)
        self._agent.extra_connections.clear()
        mine = [p for p in problems if p.index >= mark or case.shows_handshake]
        noise = sorted({p.index for p in mine if p.noise})
        broken_messages = [p for p in mine if not p.noise]
        offending = sorted({p.index for p in broken_messages})
        robustness = case.level is Level.ROBUSTNESS  # its frames are malformed on purpose: its own finding
        found = result.outcome in (Outcome.FAIL, Outcome.ERROR) or (
            robustness and result.outcome is Outcome.WARN
        )
        if not broken_messages or found:
            return result, offending, noise
        text = "; ".join(f"frame #{p.index}: {p.problem}" for p in broken_messages[:5])
        then = f" (the case itself: {result.message})" if result.message else ""
        return (
            CaseResult(
                broken(Level.ROBUSTNESS if robustness else Level.MUST, strict=self.strict),
                f"JSON-RPC 2.0 envelope broken: {text}{then}",
                expected="every message is a JSON-RPC 2.0 object with a matching id and one of result/error",
                observed=text,
                spec_key="envelope",
            ),
            offending,
            noise,
        )


def reproduction(
    handshake: list[Entry],
    entries: list[Entry],
    handshakes: tuple[str, ...],
    opens: str | None,
    starts: Sequence[int],
    second_processes: Collection[str] = (),
) -> list[dict[str, Any]]:
    """The case's requests as segments to pipe into the agent: one per agent process and one per
    extra connection. ``starts``: the transcript's marks where an agent process started; what was
    sent from one on (frames a case sends before the handshake too) goes to that process's segment,
    in the same working directory when the case restarted it. A case that began on a process it did
    not start begins with ``handshake``, what that process got from its start until its handshake
    was answered. An extra connection's segment begins at its first frame or at a handshake request
    on it (``handshakes``: the target's requests that open one). ``sessionIds``: the ids the agent
    gave each session-opening request (``opens``) of the segment, in order, so a tool can map them
    to the ids a fresh agent gives. ``waits``: the lines whose answer arrived before the next line
    went out (the others overlapped what followed, as a prompt does while status is asked during
    its turn). ``cut``: the ids of requests the case's own restart left unanswered (a turn it cut
    short), which a fresh agent need not answer either. ``second_processes``: the labels of the
    connections that were a second agent process (their segments start "second-process")."""
    segments: list[dict[str, Any]] = []
    current: dict[str, dict[str, Any]] = {}
    methods: dict[tuple[str, Any], str] = {}
    open_requests: dict[tuple[str, Any], tuple[dict[str, Any], int]] = {}
    sent: dict[int, list[tuple[Any, Any]]] = {}  # by id() of a segment: its requests' (key, id), in order
    answered: dict[int, set[Any]] = {}  # by id() of a segment: the ids an answer came to
    first = entries[0].index if entries else 0
    pending = sorted(s for s in starts if s >= first)  # the processes the case itself started

    def open_segment(conn: str, start: str) -> dict[str, Any]:
        if conn in second_processes:
            start = "second-process"
        segment = {"connection": conn or "main", "start": start, "lines": [], "sessionIds": [], "waits": []}
        segments.append(segment)
        current[conn] = segment
        return segment

    def settle(conn: str) -> None:
        """A line goes out on ``conn``: requests still unanswered there did not make it wait."""
        for key in [k for k in open_requests if k[0] == conn]:
            del open_requests[key]

    first_main = next((e for e in entries if e.direction == SEND and not e.conn), None)
    started_own = first_main is not None and bool(pending) and pending[0] <= first_main.index
    if handshake and not started_own:
        prefix = open_segment("", "fresh")
        for e in handshake:
            if e.direction == SEND and not e.conn:
                prefix["lines"].append(e.frame)
                prefix["waits"].append(len(prefix["lines"]) - 1)  # the handshake is answered in turn
    for entry in entries:
        if pending and pending[0] <= entry.index:
            # A new process: the old one's connections and unanswered requests are gone with it.
            while pending and pending[0] <= entry.index:
                pending.pop(0)
            restarted = "" in current
            if restarted:
                answered_by_id = answered.get(id(current[""]), set())
                current[""]["cut"] = [
                    raw for key, raw in sent.get(id(current[""]), []) if key not in answered_by_id
                ]
            current.clear()
            open_requests.clear()
            if restarted:
                current[""] = open_segment("", "restart")
        if entry.direction == SEND:
            method = _method(entry)
            segment = current.get(entry.conn)
            if segment is None:
                segment = open_segment(entry.conn, "restart" if not entry.conn and segments else "fresh")
            elif entry.conn and method in handshakes:
                segment = open_segment(entry.conn, "fresh")
            settle(entry.conn)
            segment["lines"].append(entry.frame)
            frame_id = _frame_id(entry)
            if method is not None and frame_id is not None:
                methods[(entry.conn, frame_id)] = method
                open_requests[(entry.conn, frame_id)] = (segment, len(segment["lines"]) - 1)
                sent.setdefault(id(segment), []).append((frame_id, (_parsed(entry) or {}).get("id")))
        elif entry.direction == RECV and entry.conn in current:
            frame_id = _frame_id(entry)
            answered.setdefault(id(current[entry.conn]), set()).add(frame_id)
            waited = open_requests.pop((entry.conn, frame_id), None)
            if waited is not None:
                waited[0]["waits"].append(waited[1])
            if opens is not None and methods.get((entry.conn, frame_id)) == opens:
                sid = _session_id(entry)
                if sid is not None:
                    current[entry.conn]["sessionIds"].append(sid)
    for segment in segments:
        if not segment.get("cut"):
            segment.pop("cut", None)
    return [s for s in segments if s["lines"]]


def _parsed(entry: Entry) -> dict[str, Any] | None:
    import json

    try:
        frame = json.loads(entry.frame)
    except ValueError:
        return None
    return frame if isinstance(frame, dict) else None


def _method(entry: Entry) -> str | None:
    frame = _parsed(entry)
    method = frame.get("method") if frame else None
    return method if isinstance(method, str) else None


def _frame_id(entry: Entry) -> Any:
    frame = _parsed(entry)
    if frame is None or "id" not in frame:
        return None
    from conformance.transport.peer import id_key

    return id_key(frame["id"])


def _session_id(entry: Entry) -> str | None:
    frame = _parsed(entry)
    result = frame.get("result") if frame else None
    sid = result.get("sessionId") if isinstance(result, dict) else None
    return sid if isinstance(sid, str) else None


def _telling(group: BaseExceptionGroup) -> BaseException:
    """The member of a task group's exceptions that says most: an interruption, an unanswered
    request, a turn the suite did not send, else the first error."""
    for kind in (RunInterrupted, Unanswered, NoTurn, Exception):
        found = group.subgroup(lambda e, k=kind: isinstance(e, k))
        if found is not None:
            first = found.exceptions[0]
            return _telling(first) if isinstance(first, BaseExceptionGroup) else first
    return group.exceptions[0]

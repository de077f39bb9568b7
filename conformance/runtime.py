"""One worker's runtime: an event loop thread, the agent process, and running cases on it.

pytest is synchronous and the harness is async, so each worker keeps one anyio loop in a
thread (a blocking portal) for its whole life. The agent process is started once per worker
and shared by cases that use fresh sessions; it is restarted only when a case asks for it or
after it died, so one crash cannot spoil the cases after it.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.from_thread import start_blocking_portal

from . import revisions
from .acp import AcpTarget
from .agent_process import AgentProcess
from .config import AgentConfig
from .http_target import HttpService, HttpStatusTarget
from .mcp import McpTarget
from .outcomes import (
    AgentExited,
    CaseResult,
    HarnessError,
    NotApplicable,
    Outcome,
    Unimplemented,
    classify,
)
from .peer import JsonRpcPeer
from .registry import Case
from .transcript import NOTE, SEND, Entry, StderrTail, Transcript

__all__ = ["CaseRecord", "RunInterrupted", "Runtime"]

CASE_BUDGET = 600.0
SILENT_CASES_LIMIT = 3
MAX_CASE_FRAMES = 2000  # seconds one case may take in all, whatever its requests' timeouts


@dataclass
class CaseRecord:
    result: CaseResult
    duration: float
    transcript: list[dict[str, Any]] = field(default_factory=list)
    stderr: str = ""
    reproduction: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)


class RunInterrupted(KeyboardInterrupt):
    """Raised in worker threads when the run is closing; Hypothesis re-raises it at once."""


class Runtime:
    def __init__(self, config: AgentConfig, *, strict: bool = False) -> None:
        self.config = config
        self.strict = strict
        self.transcript = Transcript()
        self.stderr = StderrTail()
        targets = {"mcp": McpTarget, "http": HttpStatusTarget}
        self.target: Any = targets.get(config.target, AcpTarget)(self)
        self._agent: AgentProcess | HttpService | None = None
        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._tg: anyio.abc.TaskGroup | None = None
        self._root_future, _ = self._portal.start_task(self._root)
        self.handshake_entries: list[Entry] = []
        self.revision_entries: list[Entry] = []  # the exchange that picked the revision (--spec auto)
        self.starts = 0
        self.pgids: list[int] = []
        self.closing = False
        self.started_at = time.monotonic()
        self.silent_cases = 0  # consecutive cases in which the agent answered nothing in time

    async def _root(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        async with anyio.create_task_group() as tg:
            self._tg = tg
            task_status.started(None)
            await anyio.sleep_forever()

    # -- agent lifecycle -----------------------------------------------------------------------

    @property
    def peer(self) -> JsonRpcPeer:
        if self._agent is None:
            raise HarnessError("the agent is not running")
        return self._agent.peer

    @property
    def agent_alive(self) -> bool:
        return self._agent is not None and self._agent.peer.exited is None

    async def start_agent(self) -> dict[str, Any]:
        assert self._tg is not None
        self.starts += 1
        mark = self.transcript.mark()
        service = HttpService if self.config.target == "http" else AgentProcess
        self._agent = await self._tg.start(service(self.config, self.transcript, self.stderr).run)
        if self._agent.process is not None and self._agent.process.pgid is not None:
            self.pgids.append(self._agent.process.pgid)
        try:
            return await self.target.handshake()
        finally:
            self.handshake_entries = self.transcript.since(mark)

    async def stop_agent(self) -> None:
        agent, self._agent = self._agent, None
        if agent is not None:
            agent.stop()
            with anyio.move_on_after(15):
                while agent.process is not None and (
                    agent.process.returncode is None or agent.process._group_alive()
                ):
                    await anyio.sleep(0.01)

    async def restart_agent(self) -> None:
        self.transcript.add(NOTE, "restarting the agent (same command and working directory)")
        await self.stop_agent()
        await self.start_agent()

    async def open_connection(self, label: str = "B") -> AcpTarget:
        """Another client connection to the same agent, initialized; closed when the case ends."""
        if self._agent is None or self._tg is None:
            raise HarnessError("the agent is not running")
        peer = await self._agent.open_connection(label, self._tg)
        other = AcpTarget(self, peer=peer)
        await other.handshake()
        return other

    def current_url(self) -> str | None:
        return self._agent.url if self._agent is not None else None

    def note_problems(self, peer: JsonRpcPeer) -> None:
        """A connection the case opened itself: its envelope problems count for the case."""
        if self._agent is not None:
            self._agent.extra_peers.append(peer)

    def call(self, func: Any, *args: Any) -> Any:
        """Run an async function on the runtime's loop and wait for it (for tools and tests)."""
        return self._portal.call(func, *args)

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
            revisions.use(spec)
            return spec, f"chosen with --spec {spec}"
        if target != "acp":
            name = revisions.available(target)[0]
            revisions.use(name)
            return name, f"the {target} target's spec"
        if not self.target.advertises("status"):
            revisions.use(revisions.DEFAULT)
            return revisions.DEFAULT, "the agent does not advertise session/status; the default revision"
        mark = self.transcript.mark()
        try:
            sid = await self.target.new_session()
            reply = await self.target.status(sid)
        except Exception as exc:  # the cases will say what is wrong; detection only picks a revision
            revisions.use(revisions.DEFAULT)
            return revisions.DEFAULT, f"could not ask the agent ({exc}); the default revision"
        finally:
            self.revision_entries = self.transcript.since(mark)
            # Envelope problems of this exchange are the cases' to find (they send the same
            # requests); charged to whichever case came first, they would blame the wrong one.
            self.peer.reported = len(self.peer.problems)
        value = reply.result.get("status") if reply.ok and isinstance(reply.result, dict) else None
        if value is None:
            revisions.use(revisions.DEFAULT)
            return (
                revisions.DEFAULT,
                f"status of a new session answered {reply.describe()[:80]}; the default revision",
            )
        name, why = revisions.detect(value)
        revisions.use(name)
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
        return self._portal.call(self._run_case, case)

    async def _run_case(self, case: Case) -> CaseRecord:
        started = time.perf_counter()
        spent = time.monotonic() - self.started_at
        if spent > self.config.run_budget:
            message = f"not run: the run budget of {self.config.run_budget:g} s was spent (--run-budget)"
            return CaseRecord(CaseResult(Outcome.ERROR, message), 0.0)
        if self.silent_cases >= SILENT_CASES_LIMIT:
            message = (
                f"not run: the agent answered nothing in time in {self.silent_cases} cases in a row "
                "(it hangs, or sends frames the suite cannot read)"
            )
            return CaseRecord(CaseResult(Outcome.ERROR, message), 0.0)
        if not self.agent_alive:
            try:
                if self._agent is not None:
                    await self.stop_agent()
                await self.start_agent()
            except BaseException as exc:
                result = CaseResult(Outcome.ERROR, f"could not (re)start the agent: {exc}")
                return CaseRecord(result, time.perf_counter() - started, stderr=self.stderr.text()[-2000:])
        mark, err_mark = self.transcript.mark(), self.stderr.mark()
        details: dict[str, Any] = {}
        exc: BaseException | None = None
        try:
            missing = [n for n in case.needs if not self.target.advertises(n)]
            if "no-status" in missing:
                raise NotApplicable(
                    "the agent advertises session/status; this case checks agents that do not"
                )
            if "frames" in missing:
                raise NotApplicable(
                    "over Streamable HTTP each POST carries one JSON message, so malformed frames cannot be "
                    "sent; they are checked over stdio and WebSocket"
                )
            versions = [n for n in missing if n in ("v1", "v2")]
            if versions:
                raise NotApplicable(
                    f"an ACP {versions[0]} case; this run speaks ACP v{self.config.protocol} (--protocol)"
                )
            if missing:
                raise Unimplemented(_unimplemented_message(missing))
            revision = revisions.current()
            if revision.spec_for(case.id) is None:
                why = revision.not_part.get(case.id, revision.title)
                raise NotApplicable(f"not part of spec revision {revision.name}: {why}")
            with anyio.fail_after(CASE_BUDGET):
                await case.func(self.target, details)
        except TimeoutError as e:
            exc = e
        except RunInterrupted:
            exc = HarnessError("not finished: the run was interrupted")
        except Exception as e:  # every exception is an outcome
            exc = e
        if self._agent is not None:
            with anyio.CancelScope(shield=True):
                await self._agent.close_extra()
        result = classify(exc, case.level, strict=self.strict)
        exited = self._agent.peer.exited if self._agent is not None else None
        if result.outcome is Outcome.ERROR and exited is not None and "exited" not in result.message:
            # e.g. Hypothesis calls a run "flaky" when the agent died under it: say what happened.
            result = CaseResult(
                Outcome.ERROR,
                f"agent exited with code {exited.code} (the case was at: {result.message[:200]})",
            )
        result = self._apply_envelope_problems(result)
        self.silent_cases = self.silent_cases + 1 if isinstance(exc, TimeoutError) else 0
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
            entries = [e for e in self.handshake_entries if e.index < mark] + entries
        record = CaseRecord(
            result=result,
            duration=time.perf_counter() - started,
            transcript=[e.to_json() for e in entries],
            stderr=self.stderr.since(err_mark)[-4000:],
            reproduction=self._reproduction(entries),
            details=details,
        )
        if isinstance(exc, AgentExited) or not self.agent_alive:
            record.details.setdefault("agent_exited", True)
        if (
            self._agent is not None
            and self._agent.process is not None
            and self._agent.process.pgid is not None
        ):
            record.details["agent_pgid"] = self._agent.process.pgid
        return record

    def _apply_envelope_problems(self, result: CaseResult) -> CaseResult:
        """Problems not yet reported (including the handshake's) fail the case they arrived by."""
        if self._agent is None:
            return result
        problems = []
        for peer in [self._agent.peer, *self._agent.extra_peers]:  # connection B's frames count too
            problems += peer.problems[peer.reported :]
            peer.reported = len(peer.problems)
        self._agent.extra_peers.clear()
        if not problems or result.outcome in (Outcome.FAIL, Outcome.ERROR):
            return result
        text = "; ".join(f"frame #{p.index}: {p.problem}" for p in problems[:5])
        return CaseResult(
            Outcome.FAIL,
            f"JSON-RPC 2.0 envelope broken: {text}",
            expected="every frame is a JSON-RPC 2.0 object with a matching id and one of result/error",
            observed=text,
        )

    def _reproduction(self, entries: list[Entry]) -> list[str]:
        # What the suite sent, preceded by the handshake, replays the case against a fresh agent.
        seen = {e.index for e in entries}
        handshake = [e for e in self.handshake_entries if e.index not in seen]
        return [e.frame for e in handshake + entries if e.direction == SEND]


def _unimplemented_message(missing: list[str]) -> str:
    names = {
        "status": "sessionCapabilities.status",
        "close": "sessionCapabilities.close",
        "list": "sessionCapabilities.list",
        "persist": "loadSession or sessionCapabilities.resume",
        "resume-or-load": "loadSession or sessionCapabilities.resume",
        "heartbeat": "a session_heartbeat tool (tools/list)",
        "http-status": "GET /sessions/{session_id}/status (its OpenAPI document has no such route)",
    }
    return "the agent does not advertise " + ", ".join(names.get(m, m) for m in missing)

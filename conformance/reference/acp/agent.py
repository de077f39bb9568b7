"""A conforming ACP v1 agent with `session/status`, built on the official ACP Python SDK.

Copy this to add `session/status` to an SDK agent. The SDK (agent-client-protocol 0.12) has no
`session/status` route and drops unknown capability keys when it parses an InitializeResponse,
so this agent (1) answers `initialize` with a plain dict that carries
`sessionCapabilities.status: {}` and (2) puts its own handler in front of the SDK's router:
`session/status` is answered here, every other method goes to the SDK.

Sessions are persisted as JSON files under `<cwd>/.acp-reference-sessions/`, so after a
restart with the same working directory they are `inactive` (known, resumable, not in memory).
Status is an in-memory lookup: known ids are indexed at start and on create. `session/delete`
(unstable, also not routed by the SDK 0.12) forgets a session: its status is then -32002.

Test hooks in the prompt text, as in the v2 agent: "[slow]" keeps the turn working for half a
second, "[permission]" asks the client for permission first (a turn in progress that status can
be asked about).

The machinery real agents have around their sessions (a memory cap with least-recently-used
eviction, idle eviction, per-session prompt allowances, serialised or overlapping requests, a
storage layer with length limits) is in memory.py, each part off unless its flag turns it on.

With --surface it offers the optional surface a client may use beside status: session modes
(`session/set_mode`), a config option (`session/set_config_option`), both reported back by
session/new, load and resume, and an extension method `_session/rename` (advertised in
`agentCapabilities._meta`) that retitles a session. Settings and titles set so live in memory
and reach storage with the session's next save (a turn's end). It also offers the unstable session
methods of the SDK 2.4.0 schema: `session/fork` (a new session in memory with the source's
history), `session/archive` (closed, hidden from the list), `session/unarchive` (listed again,
never loaded) and `session/set_title` (stored before it answers, in memory or not).

Run: python -m conformance.reference.acp.agent [--no-status] [--in-memory] [--surface]
     [--revision acp-unstable-2026-11] [--memory-cap N] [--idle-evict-after S] [--session-request-limit N]
     [--serialise] [--request-delay S] [--storage-delay S] [--max-length N]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.agent.router import build_agent_router
from acp.connection import Connection
from acp.stdio import stdio_streams

# Run as a file (python conformance/reference/acp/agent.py): import it as the package it is in.
if not __package__:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # pragma: no mutate (run as a file)
    __package__ = "conformance.reference.acp"

from .common import LIMIT_REACHED, REVISION_WORDS, STATE_DIR, not_found, now_iso
from .guard import guard_stdin
from .memory import Policy, SessionMemory, add_policy_arguments

__all__ = ["ReferenceAgent", "main", "not_found"]

SLOW_TURN = 0.5
# --surface: the session modes and the one config option (with its values) every session offers.
MODES = ("ask", "code")
EFFORT = ("low", "high")
RENAME = "_session/rename"


class ReferenceAgent:
    """The agent's methods, called by the SDK router with snake_case keyword arguments."""

    advertise_status = True
    # The wire words for "in memory" and "known, not in memory": the RFD's by default,
    # `open` / `saved` with --revision acp-unstable-2026-11 (the SDK 2.4.0 schema).
    words: dict[str, str] = {"active": "active", "inactive": "inactive"}  # noqa: RUF012
    persist = True
    guard_input = True  # see guard.py: the SDK alone dies on a batch array
    policy = Policy()  # the session machinery (memory.py); all off by default
    surface = False  # --surface: modes, a config option and `_session/rename`

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.loaded: dict[str, dict[str, Any]] = {}  # sessions in memory
        self.turns: dict[str, asyncio.Event] = {}  # turns in progress, by session
        self.memory = SessionMemory(self.policy, self.evict, lambda sid: sid in self.turns)
        self.serial = asyncio.Lock()  # --serialise: one request at a time
        self.known: set[str] = set()  # sessions on disk (index, so status needs no I/O)
        self.listing: dict[str, dict[str, Any]] = {}  # session/list entries, kept in memory
        self.archived: set[str] = set()  # hidden from session/list (--surface: session/archive)
        self.conn: Connection | None = None
        # Over WebSocket, the sessions this connection created, loaded or resumed (only these
        # may be prompted from it); None on stdio, where there is one connection.
        self.attached: set[str] | None = None
        if self.persist:
            state_dir.mkdir(parents=True, exist_ok=True)
            for path in state_dir.glob("*.json"):
                self.index(json.loads(path.read_text(encoding="utf-8")))

    def view(self) -> ReferenceAgent:
        """This agent as a new connection sees it: the same sessions, nothing attached."""
        other = copy.copy(self)
        other.attached, other.conn = set(), None
        return other

    def attach(self, session_id: str) -> None:
        if self.attached is not None:
            self.attached.add(session_id)

    # -- the methods the SDK does not route ----------------------------------------------------

    def front(self, router: Callable[[str, Any, bool], Any]) -> Callable[[str, Any, bool], Any]:
        """The connection's handler: `session/status` and `session/delete` here, the rest to the SDK."""

        async def dispatch(method: str, params: Any, is_notification: bool) -> Any:
            if not is_notification and method == "session/status" and self.advertise_status:
                return await self.session_status(params)
            if not is_notification and method == "session/delete":
                return await self.delete_session(params)
            if not is_notification and self.surface and method in self.surface_methods():
                return await self.surface_methods()[method](params)
            return await router(method, params, is_notification)

        async def handler(method: str, params: Any, is_notification: bool) -> Any:
            if not self.policy.serialise:
                await self.request_delay()
                return await dispatch(method, params, is_notification)
            async with self.serial:  # in arrival order: the SDK starts a task per message, in order
                await self.request_delay()
                if method != "session/prompt":
                    return await dispatch(method, params, is_notification)
            return await dispatch(method, params, is_notification)  # a turn runs beside later requests

        return handler

    async def request_delay(self) -> None:
        if self.policy.request_delay:
            await asyncio.sleep(self.policy.request_delay)

    # -- the session/status method -------------------------------------------------------------

    async def session_status(self, params: Any) -> dict[str, Any]:
        session_id = self.status_params(params)
        return {"status": self.status_of(session_id)}

    def status_params(self, params: Any) -> str:
        if not isinstance(params, dict) or not isinstance(params.get("sessionId"), str):
            raise RequestError.invalid_params({"reason": "sessionId (string) is required"})
        return params["sessionId"]

    def status_of(self, session_id: str) -> str:
        if not self.fits(session_id):
            raise not_found(session_id)  # longer than storage takes: never stored
        if session_id in self.loaded:
            return self.words["active"]
        if session_id in self.known:
            return self.words["inactive"]
        raise not_found(session_id)

    # -- the optional surface (--surface) -------------------------------------------------------

    def surface_methods(self) -> dict[str, Callable[[Any], Any]]:
        return {
            "session/set_mode": self.set_mode,
            "session/set_config_option": self.set_config_option,
            RENAME: self.rename,
            "session/fork": self.fork,
            "session/archive": self.archive,
            "session/unarchive": self.unarchive,
            "session/set_title": self.set_title,
        }

    def default_mode(self, session_id: str) -> str:
        return MODES[0]

    def settings(self, session: dict[str, Any]) -> dict[str, Any]:
        """What session/new, load and resume report of the session's settings (nothing without
        --surface)."""
        if not self.surface:
            return {}
        return {
            "modes": {
                "currentModeId": session.get("mode") or self.default_mode(session["sessionId"]),
                "availableModes": [{"id": m, "name": m.title()} for m in MODES],
            },
            "configOptions": self.config_options(session),
        }

    def config_options(self, session: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {
                "id": "effort",
                "name": "Effort",
                "type": "select",
                "currentValue": session.get("effort") or EFFORT[0],
                "options": [{"value": v, "name": v.title()} for v in EFFORT],
            }
        ]

    def held(self, params: Any) -> dict[str, Any]:
        """The in-memory session a settings call names (-32002 when not in memory)."""
        session_id = self.status_params(params)
        session = self.loaded.get(session_id)
        if session is None or (self.attached is not None and session_id not in self.attached):
            raise not_found(session_id)
        return session

    async def set_mode(self, params: Any) -> dict[str, Any]:
        session = self.held(params)
        mode = params.get("modeId")
        if mode not in MODES:
            raise RequestError.invalid_params({"reason": f"no mode {mode!r}"})
        session["mode"] = mode
        return {}

    async def set_config_option(self, params: Any) -> dict[str, Any]:
        session = self.held(params)
        if params.get("configId") != "effort" or params.get("value") not in EFFORT:
            raise RequestError.invalid_params({"reason": "effort: low or high"})
        session["effort"] = params["value"]
        return {"configOptions": self.config_options(session)}

    async def rename(self, params: Any) -> dict[str, Any]:
        """`_session/rename`: the title the client gives (a default one without it), kept in memory
        and in the list index; stored with the session's next save."""
        session = self.held(params)
        title = params.get("title")
        session["title"] = title if isinstance(title, str) and title else "Renamed"
        self.index(session)
        return {}

    # The unstable session methods of the SDK 2.4.0 schema (fork, archive, set_title), routed
    # here: the SDK 0.12 routes none but fork, and that one without the schema's cwd checks.

    def existing(self, params: Any) -> dict[str, Any]:
        """The session a call names, in memory or read from storage without loading it (-32002
        when the agent does not know it)."""
        session_id = self.status_params(params)
        if session_id not in self.loaded and session_id not in self.known:
            raise not_found(session_id)
        return self.read(session_id)

    async def fork(self, params: Any) -> dict[str, Any]:
        """session/fork: a new session, in memory, with the source's history; the source is
        untouched (not loaded, if it was not)."""
        source = self.existing(params)
        cwd = params.get("cwd")
        if not isinstance(cwd, str) or not cwd.startswith("/") or not self.fits(cwd):
            raise RequestError.invalid_params({"reason": "cwd (an absolute path) is required"})
        await self.storage_io()
        session_id = f"sess_{uuid.uuid4().hex}"
        session = {
            "sessionId": session_id,
            "cwd": cwd,
            "title": None,
            "updatedAt": now_iso(),
            "history": [list(turn) for turn in source["history"]],
        }
        self.loaded[session_id] = session
        self.save(session)
        self.memory.use(session_id)
        self.attach(session_id)
        return {"sessionId": session_id, **self.settings(session)}

    async def archive(self, params: Any) -> dict[str, Any]:
        """session/archive: closed as session/close would, and hidden from session/list."""
        session_id = self.existing(params)["sessionId"]
        await self.close_session(session_id)
        self.archived.add(session_id)
        return {}

    async def unarchive(self, params: Any) -> dict[str, Any]:
        """session/unarchive: listed again; never loaded."""
        self.archived.discard(self.existing(params)["sessionId"])
        return {}

    async def set_title(self, params: Any) -> dict[str, Any]:
        """session/set_title: stored before the answer, whether the session is in memory or not."""
        session = self.existing(params)
        title = params.get("title")
        if not isinstance(title, str) or not title.strip():
            raise RequestError.invalid_params({"reason": "title: a non-empty string"})
        session["title"] = title.strip()[:200]
        await self.storage_io()
        self.save(session)
        return {}

    # -- ACP methods ---------------------------------------------------------------------------

    def capabilities(self) -> dict[str, Any]:
        session_caps: dict[str, Any] = {"list": {}, "close": {}, "delete": {}}
        if self.persist:
            session_caps["resume"] = {}
        if self.advertise_status:
            session_caps["status"] = {}
        caps: dict[str, Any] = {
            "loadSession": self.persist,
            "promptCapabilities": {"image": False, "audio": False, "embeddedContext": False},
            "sessionCapabilities": session_caps,
        }
        if self.surface:
            caps["_meta"] = {RENAME: {}}
            session_caps.update(fork={}, archive={}, title={})
        return caps

    async def initialize(self, protocol_version: int, **kwargs: Any) -> dict[str, Any]:
        return {
            "protocolVersion": 1,
            "agentCapabilities": self.capabilities(),
            "agentInfo": {
                "name": "acp-reference-agent",
                "title": "ACP session/status reference agent",
                "version": "0.1.0",
            },
            "authMethods": [],
        }

    async def authenticate(self, method_id: str, **kwargs: Any) -> dict[str, Any]:
        return {}

    async def new_session(self, cwd: str, **kwargs: Any) -> dict[str, Any]:
        if not self.fits(cwd):
            raise RequestError.invalid_params(
                {"reason": f"cwd is longer than {self.policy.max_length} characters"}
            )
        session_id = f"sess_{uuid.uuid4().hex}"
        session = {"sessionId": session_id, "cwd": cwd, "title": None, "updatedAt": now_iso(), "history": []}
        await self.storage_io()
        self.loaded[session_id] = session
        self.save(session)
        self.memory.use(session_id)
        self.attach(session_id)
        return {"sessionId": session_id, **self.settings(session)}

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> dict[str, Any]:
        await self.storage_io()
        session = self.read(session_id)
        self.loaded[session_id] = session
        self.memory.use(session_id)
        self.attach(session_id)
        for role, text in session["history"]:
            kind = "user_message_chunk" if role == "user" else "agent_message_chunk"
            await self.notify(session_id, {"sessionUpdate": kind, "content": {"type": "text", "text": text}})
        return self.settings(session)

    async def resume_session(self, session_id: str, cwd: str, **kwargs: Any) -> dict[str, Any]:
        await self.storage_io()
        self.loaded[session_id] = session = self.read(session_id)
        self.memory.use(session_id)
        self.attach(session_id)
        return self.settings(session)

    async def close_session(self, session_id: str, **kwargs: Any) -> dict[str, Any]:
        self.memory.forget(session_id)
        session = self.loaded.pop(session_id, None)
        if session is None and session_id not in self.known:
            raise not_found(session_id)
        if not self.persist:
            self.known.discard(session_id)  # nothing to resume from: the session is gone
            self.listing.pop(session_id, None)
        return {}

    async def delete_session(self, params: Any) -> dict[str, Any]:
        session_id = self.status_params(params)
        if session_id not in self.loaded and session_id not in self.known:
            raise not_found(session_id)
        self.memory.forget(session_id)
        self.loaded.pop(session_id, None)
        self.known.discard(session_id)
        self.listing.pop(session_id, None)
        if self.persist:
            (self.state_dir / f"{session_id}.json").unlink(missing_ok=True)
        return {}

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        entries = [
            dict(e)
            for sid, e in sorted(self.listing.items())
            if (cwd is None or e["cwd"] == cwd) and sid not in self.archived
        ]
        return {"sessions": entries}

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> dict[str, Any]:
        session = self.loaded.get(session_id)
        if session is None or (self.attached is not None and session_id not in self.attached):
            raise not_found(session_id)  # not in memory, or not attached to this connection
        text = " ".join(getattr(block, "text", "") or "" for block in prompt).strip()
        if not self.fits(text):
            raise RequestError.invalid_params(
                {"reason": f"the prompt is longer than {self.policy.max_length} characters"}
            )
        if not self.memory.may_prompt(session_id):
            raise RequestError(
                LIMIT_REACHED,
                "Session request limit reached",
                {"sessionId": session_id, "limit": self.policy.session_request_limit},
            )
        self.memory.use(session_id)
        cancelled = self.turns[session_id] = asyncio.Event()
        try:
            if not await self.work(session_id, text, cancelled):
                return {"stopReason": "cancelled"}
        finally:
            self.turns.pop(session_id, None)
        reply = f"echo: {text}"
        await self.notify(
            session_id, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": reply}}
        )
        session["history"] += [["user", text], ["agent", reply]]
        session["title"] = session["title"] or text[:40] or None
        session["updatedAt"] = now_iso()
        await self.storage_io()
        self.save(session)
        self.memory.use(session_id)
        return {"stopReason": "end_turn"}

    async def work(self, session_id: str, text: str, cancelled: asyncio.Event) -> bool:
        """The turn's work before it answers; False when the client cancelled it meanwhile."""
        steps: list[Any] = []
        if "[slow]" in text:
            steps.append(asyncio.sleep(SLOW_TURN))
        if "[permission]" in text:
            assert self.conn is not None
            steps.append(
                self.conn.send_request(
                    "session/request_permission",
                    {
                        "sessionId": session_id,
                        "toolCall": {"toolCallId": "call_1", "title": "write a file"},
                        "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}],
                    },
                )
            )
        for step in steps:
            task, stop = asyncio.ensure_future(step), asyncio.ensure_future(cancelled.wait())
            await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
            stop.cancel()
            if cancelled.is_set():
                task.cancel()
                return False
        return True

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        turn = self.turns.get(session_id)
        if turn is not None:
            turn.set()

    # -- storage and notifications -------------------------------------------------------------

    def evict(self, session_id: str) -> None:
        """The agent takes the session out of memory on its own (memory cap, idle): kept on disk,
        so it is inactive and can be resumed; without persistence it is gone."""
        self.loaded.pop(session_id, None)
        if not self.persist:
            self.known.discard(session_id)
            self.listing.pop(session_id, None)

    def fits(self, value: str) -> bool:
        """Whether storage takes the value whole (--max-length): a longer one is refused, never cut."""
        return self.policy.max_length is None or len(value) <= self.policy.max_length

    async def storage_io(self) -> None:
        """Storage's own time (--storage-delay): other requests go on meanwhile."""
        if self.policy.storage_delay:
            await asyncio.sleep(self.policy.storage_delay)

    def index(self, session: dict[str, Any]) -> None:
        entry = {k: session[k] for k in ("sessionId", "cwd", "updatedAt")}
        if session.get("title"):
            entry["title"] = session["title"]
        self.listing[session["sessionId"]] = entry
        self.known.add(session["sessionId"])

    def save(self, session: dict[str, Any]) -> None:
        self.index(session)
        if not self.persist:
            return
        path = self.state_dir / f"{session['sessionId']}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(session), encoding="utf-8")
        os.replace(tmp, path)

    def read(self, session_id: str) -> dict[str, Any]:
        if session_id in self.loaded:
            return self.loaded[session_id]
        if session_id not in self.known or not self.persist or not self.fits(session_id):
            raise not_found(session_id)
        return json.loads((self.state_dir / f"{session_id}.json").read_text(encoding="utf-8"))

    async def notify(self, session_id: str, update: dict[str, Any]) -> None:
        assert self.conn is not None
        await self.conn.send_notification("session/update", {"sessionId": session_id, "update": update})


async def serve(agent: ReferenceAgent, transform_out: Callable[[bytes], bytes] | None = None) -> None:
    # The SDK's Agent Protocol lists every method of the protocol; the reference serves a subset
    # (the router answers the others method-not-found).
    router = build_agent_router(agent, use_unstable_protocol=True)  # type: ignore[arg-type]  # a subset of Agent
    handler = agent.front(router)

    reader, writer = await stdio_streams(limit=64 * 1024 * 1024)
    if agent.guard_input:
        reader = await guard_stdin(reader, writer)  # the SDK crashes on some malformed frames
    if transform_out is not None:  # test hook: broken variants rewrite outgoing bytes
        write = writer.write
        # The SDK writes bytes; StreamWriter.write's annotation admits bytearray and memoryview too.
        writer.write = lambda data: write(transform_out(data))  # type: ignore[method-assign]  # bytes only
    agent.conn = Connection(handler, writer, reader, listening=False)
    await agent.conn.main_loop()


def build_parser() -> argparse.ArgumentParser:
    """The reference agent's options: what it serves, where it keeps sessions, how it answers."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--no-status", action="store_true", help="do not advertise or serve session/status")
    parser.add_argument("--in-memory", action="store_true", help="do not persist sessions (no load/resume)")
    parser.add_argument(
        "--surface",
        action="store_true",
        help="offer session modes, a config option, the extension method _session/rename and the unstable "
        "session/fork, session/archive, session/unarchive and session/set_title",
    )
    parser.add_argument(
        "--state-dir", default=None, help=f"where sessions are stored (default: ./{STATE_DIR})"
    )
    parser.add_argument(
        "--listen",
        default=None,
        metavar="HOST:PORT",
        help="serve over WebSocket instead of stdio (port 0: any free port); prints 'ACP_URL ws://…' when ready",
    )
    parser.add_argument(
        "--listen-http",
        default=None,
        metavar="HOST:PORT",
        help="serve over ACP Streamable HTTP instead of stdio; prints 'ACP_URL http://…/acp' when ready",
    )
    parser.add_argument(
        "--protocol",
        type=int,
        choices=[1, 2],
        default=1,
        help="ACP protocol version: 1 (default) or 2 (agent_v2.py: foreground state in session/status)",
    )
    parser.add_argument(
        "--revision",
        default=None,
        choices=sorted(REVISION_WORDS),
        help="answer in this spec revision's status words (rfd-2026-10-26: active/inactive, the default; "
        "acp-unstable-2026-11: open/saved)",
    )
    add_policy_arguments(parser)
    return parser


def with_options(
    agent_class: type[ReferenceAgent], args: argparse.Namespace, policy: Policy
) -> type[ReferenceAgent]:
    """``agent_class``, or a subclass of it that serves what the options say instead."""
    if not (args.no_status or args.in_memory or args.surface or args.revision or policy != Policy()):
        return agent_class
    overrides: dict[str, Any] = {
        "advertise_status": agent_class.advertise_status and not args.no_status,
        "persist": agent_class.persist and not args.in_memory,
        "surface": agent_class.surface or args.surface,
    }
    if args.revision:
        overrides["words"] = dict(REVISION_WORDS[args.revision])
    if policy != Policy():
        overrides["policy"] = policy
    return type(agent_class.__name__, (agent_class,), overrides)


def main(
    agent_class: type[ReferenceAgent] = ReferenceAgent,
    argv: list[str] | None = None,
    transform_out: Callable[[bytes], bytes] | None = None,
    v2_class: Any = None,
) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    policy = Policy.from_args(args)
    if args.protocol == 2:
        from .agent_v2 import main_v2  # broken v2 variants call main_v2 with their own class

        if args.listen or args.listen_http:
            parser.error("--listen / --listen-http serve ACP v1 only; the v2 reference agent speaks stdio")
        with contextlib.suppress(KeyboardInterrupt):
            main_v2(Path(args.state_dir) if args.state_dir else None, args.revision, v2_class, policy)
        return
    agent = with_options(agent_class, args, policy)(Path(args.state_dir or Path.cwd() / STATE_DIR))
    with contextlib.suppress(KeyboardInterrupt):
        if args.listen:
            from .ws import parse_listen, serve_websocket

            asyncio.run(serve_websocket(agent.view, *parse_listen(args.listen)))
        elif args.listen_http:
            from .streamable_http import serve_http
            from .ws import parse_listen

            asyncio.run(serve_http(agent.view, *parse_listen(args.listen_http)))
        else:
            asyncio.run(serve(agent, transform_out))


if __name__ == "__main__":  # pragma: no mutate (run as a file)
    main()

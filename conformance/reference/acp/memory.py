"""What real agents keep around their sessions, shared by the v1 and v2 reference agents; each part
is off unless its own command-line flag turns it on, so the agents' default behaviour is the
plain one.

- ``--memory-cap N``: at most N sessions in memory. When one more comes in (created, loaded,
  resumed), the least recently used session leaves memory: it stays on disk, so its status is
  `inactive` (`saved`) and it can be resumed. "Used" is what a client does to the session
  (create, load, resume, prompt); `session/status` never counts, nor does `session/list`.
- ``--idle-evict-after S``: a session nobody used for S seconds leaves memory the same way.
- ``--session-request-limit N``: a session accepts N prompts; the next ones are refused with
  a JSON-RPC error. Status never counts against it.
- ``--serialise``: one request at a time, in arrival order (a turn's work runs beside it: its
  prompt holds the line only while it starts). With ``--request-delay S`` every request takes S
  seconds first: a slow agent that queues.
- ``--storage-delay S``: reading or writing a session takes S seconds, during which other requests
  go on (the SDK runs each request as its own task): requests overlap, as they do in an agent whose
  storage is a database or a network disk.
- ``--max-length N``: the storage layer takes ids, working directories and prompt texts of at most
  N characters. It refuses a longer one (invalid params; an id it could never have stored is
  unknown, -32002); it never cuts it, since a cut id would name another session.

A session with a turn in progress never leaves memory. Status stays an in-memory lookup: none
of this is on its path.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Policy", "SessionMemory", "add_policy_arguments"]


@dataclass(frozen=True)
class Policy:
    memory_cap: int | None = None
    idle_evict_after: float | None = None
    session_request_limit: int | None = None
    serialise: bool = False
    request_delay: float = 0.0
    storage_delay: float = 0.0
    max_length: int | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Policy:
        return cls(
            memory_cap=args.memory_cap,
            idle_evict_after=args.idle_evict_after,
            session_request_limit=args.session_request_limit,
            serialise=args.serialise,
            request_delay=args.request_delay,
            storage_delay=args.storage_delay,
            max_length=args.max_length,
        )


def add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("session machinery (each off by default)")
    group.add_argument(
        "--memory-cap", type=int, default=None, metavar="N", help="keep at most N sessions in memory"
    )
    group.add_argument(
        "--idle-evict-after",
        type=float,
        default=None,
        metavar="S",
        help="evict sessions unused for S seconds",
    )
    group.add_argument(
        "--session-request-limit", type=int, default=None, metavar="N", help="a session accepts N prompts"
    )
    group.add_argument("--serialise", action="store_true", help="handle one request at a time")
    group.add_argument(
        "--request-delay", type=float, default=0.0, metavar="S", help="each request takes S seconds"
    )
    group.add_argument(
        "--storage-delay", type=float, default=0.0, metavar="S", help="storage I/O takes S seconds"
    )
    group.add_argument(
        "--max-length", type=int, default=None, metavar="N", help="refuse ids and texts over N characters"
    )


class SessionMemory:
    """Which sessions are in memory, in order of use (least recently used first), and how many
    prompts each has had. ``evict(session_id)`` is the agent's own: it takes the session out of
    memory. ``busy(session_id)``: a turn is in progress (such a session is never evicted)."""

    def __init__(self, policy: Policy, evict: Callable[[str], None], busy: Callable[[str], bool]) -> None:
        self.policy = policy
        self.evict = evict
        self.busy = busy
        self.last_used: dict[str, float] = {}  # in memory, least recently used first
        self.prompts: dict[str, int] = {}
        self.sweeper: asyncio.Task[None] | None = None

    def use(self, session_id: str) -> None:
        """The client used the session (created, loaded, resumed, prompted it): it is in memory and
        the most recently used; over the cap, the least recently used others leave."""
        self.last_used.pop(session_id, None)
        self.last_used[session_id] = time.monotonic()
        self.start_sweeper()
        cap = self.policy.memory_cap
        if cap is None:
            return
        while len(self.last_used) > cap:
            victim = self.victim(keep=session_id)
            if victim is None:
                return  # every other session is in a turn: over the cap until one ends
            self.drop(victim)

    def victim(self, keep: str) -> str | None:
        """The session to evict when memory is over the cap: the least recently used one that is
        not ``keep`` and has no turn in progress."""
        for session_id in self.last_used:
            if session_id != keep and not self.busy(session_id):
                return session_id
        return None

    def drop(self, session_id: str) -> None:
        self.last_used.pop(session_id, None)
        self.evict(session_id)

    def forget(self, session_id: str) -> None:
        """The session left memory by the client's doing (closed, deleted)."""
        self.last_used.pop(session_id, None)

    def may_prompt(self, session_id: str) -> bool:
        """Count one prompt of the session: False once it has had its allowance."""
        limit = self.policy.session_request_limit
        if limit is None:
            return True
        self.prompts[session_id] = self.prompts.get(session_id, 0) + 1
        return self.prompts[session_id] <= limit

    # -- idle eviction -------------------------------------------------------------------------

    def idle(self, now: float) -> list[str]:
        """The sessions in memory nobody used for the idle delay, and with no turn in progress."""
        after = self.policy.idle_evict_after
        if after is None:
            return []
        return [sid for sid, used in self.last_used.items() if now - used >= after and not self.busy(sid)]

    def start_sweeper(self) -> None:
        if self.policy.idle_evict_after is not None and self.sweeper is None:
            self.sweeper = asyncio.get_running_loop().create_task(self.sweep())

    async def sweep(self) -> None:
        after = self.policy.idle_evict_after or 0.0
        period = min(max(after / 10, 0.02), 1.0)
        while True:
            await asyncio.sleep(period)
            for session_id in self.idle(time.monotonic()):
                self.drop(session_id)

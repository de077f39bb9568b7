"""What a deployed HTTP status service has besides its routes, each switched on by its own flag.

:class:`Machinery` is a mixin of :class:`~conformance.reference.http.service.ReferenceService`.
Every feature is off by default, and on, it keeps the status route as the spec wants it: a probe
reads the persisted state and spends, loads, renews or revives nothing.

- ``--memory-cap N``: at most N sessions are *loaded* (their working state: the events of their
  runs, replayed to a reconnecting stream, whose latest id the messages show as
  ``event_cursor``); using one more (creating it, a chat, an answer, an interrupt) evicts the
  least recently used one that no run holds. An evicted session's persisted state still answers
  every route; its ``event_cursor`` is null until a use loads it again.
- ``--idle-evict-after S``: a loaded session that nothing used for S seconds is evicted the same
  way (a sweeper looks four times a second).
- ``--request-limit N``: at most N requests a minute on the routes that name a session (messages,
  chat and its answers, interrupt, delete), per session; beyond that 429. Status never counts.
- ``--max-id-length N``: the storage layer refuses an id (the session's, the agent's, the
  x-user-id) longer than N characters with a 422 on every route, rather than cutting it.
- ``--max-concurrent N``: at most N requests are handled at once; the others wait their turn
  (none is refused).
- ``--store FILE``: credentials, agents and sessions (records and messages) are written to FILE
  and read back at start-up, so they outlive a restart; runs, leases and loaded state do not.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from fastapi import HTTPException

from .models import Agent, Credential, Session, new_id, now_iso

__all__ = ["Loaded", "Machinery"]

WINDOW = 60.0  # seconds of a request allowance
SAVE_EVERY = 0.2  # seconds between writes of the store


@dataclass
class Loaded:
    """A session's working state while it is in memory."""

    used_at: float  # time.monotonic() of its last use
    events: list[dict[str, Any]] = field(default_factory=list)


class Machinery:
    """The switchable machinery; mixed into ReferenceService, which provides the state below."""

    credentials: dict[str, Credential]
    agents: dict[str, Agent]
    sessions: dict[str, Session]
    lease_held: Any

    memory_cap: int | None = None
    idle_evict_after: float | None = None
    request_limit: int | None = None
    max_id_length: int | None = None
    max_concurrent: int | None = None
    store_path: str | None = None

    def configure(
        self,
        *,
        memory_cap: int | None = None,
        idle_evict_after: float | None = None,
        request_limit: int | None = None,
        max_id_length: int | None = None,
        max_concurrent: int | None = None,
        store: str | None = None,
    ) -> None:
        self.memory_cap = memory_cap
        self.idle_evict_after = idle_evict_after
        self.request_limit = request_limit
        self.max_id_length = max_id_length
        self.max_concurrent = max_concurrent
        self.store_path = store
        if store is not None and os.path.exists(store):
            self.read_store(store)

    @property
    def loaded(self) -> collections.OrderedDict[str, Loaded]:
        """Loaded sessions, least recently used first."""
        found = self.__dict__.get("_loaded")
        if found is None:
            found = self.__dict__["_loaded"] = collections.OrderedDict()
        return found

    # -- loaded state ----------------------------------------------------------------------------

    def use(self, session: Session) -> Loaded:
        """A use of the session (never a status probe): loaded, most recently used, and whatever
        the memory cap then leaves no room for is evicted."""
        state = self.loaded.pop(session.id, None) or Loaded(time.monotonic())
        state.used_at = time.monotonic()
        self.loaded[session.id] = state
        self.evict_over_cap()
        return state

    def evict_over_cap(self) -> None:
        if self.memory_cap is None:
            return
        while len(self.loaded) > self.memory_cap:
            victim = next((sid for sid in self.loaded if not self.lease_held(sid)), None)
            if victim is None:
                return  # every loaded session has a run going: none can be evicted now
            self.evict(victim)

    def evict(self, session_id: str) -> None:
        """Drop the session's working state; its persisted state stays and answers every route."""
        self.loaded.pop(session_id, None)

    def evict_idle(self) -> None:
        if self.idle_evict_after is None:
            return
        now = time.monotonic()
        for sid, state in list(self.loaded.items()):
            if now - state.used_at >= self.idle_evict_after and not self.lease_held(sid):
                self.evict(sid)

    def emit(self, session: Session, kind: str, **data: Any) -> None:
        """An event of the session's run, kept while the session is loaded."""
        state = self.loaded.get(session.id)
        if state is not None:
            state.events.append({"id": new_id(), "type": kind, "at": now_iso(), **data})

    def event_cursor(self, session: Session) -> str | None:
        """The latest event the messages already include: None once the session was evicted."""
        state = self.loaded.get(session.id)
        return state.events[-1]["id"] if state is not None and state.events else None

    # -- the request allowance -------------------------------------------------------------------

    @property
    def allowances(self) -> dict[str, list[float]]:
        found = self.__dict__.get("_allowances")
        if found is None:
            found = self.__dict__["_allowances"] = {}
        return found

    def spend(self, session_id: str) -> None:
        """One request of the session's allowance (status never calls this): 429 once spent."""
        if self.request_limit is None:
            return
        now = time.monotonic()
        window = self.allowances.setdefault(session_id, [now, 0])
        if now - window[0] >= WINDOW:
            window[0], window[1] = now, 0
        if window[1] >= self.request_limit:
            raise HTTPException(
                429, f"Session '{session_id}' has used its {self.request_limit} requests a minute."
            )
        window[1] += 1

    # -- the storage layer's limits --------------------------------------------------------------

    def check_length(self, value: str, where: list[str]) -> None:
        """A value longer than the storage allows is refused (422), never cut to fit."""
        if self.max_id_length is None or len(value) <= self.max_id_length:
            return
        raise HTTPException(
            422,
            [
                {
                    "loc": where,
                    "msg": f"String should have at most {self.max_id_length} characters",
                    "type": "string_too_long",
                    "ctx": {"max_length": self.max_id_length},
                }
            ],
        )

    # -- concurrency -----------------------------------------------------------------------------

    @property
    def slots(self) -> asyncio.Semaphore | None:
        """Request slots (--max-concurrent), made on the serving loop."""
        if self.max_concurrent is None:
            return None
        found = self.__dict__.get("_slots")
        if found is None:
            found = self.__dict__["_slots"] = asyncio.Semaphore(self.max_concurrent)
        return found

    # -- background work -------------------------------------------------------------------------

    async def background(self) -> None:
        """The sweeper and the store's writer, while the service runs."""
        if self.idle_evict_after is None and self.store_path is None:
            return
        step = min(0.25, self.idle_evict_after / 4) if self.idle_evict_after else SAVE_EVERY
        while True:
            await asyncio.sleep(step)
            self.evict_idle()
            if self.store_path is not None:
                self.write_store(self.store_path)

    # -- the store -------------------------------------------------------------------------------

    def write_store(self, path: str) -> None:
        data = {
            "credentials": [asdict(c) for c in self.credentials.values()],
            "agents": [asdict(a) for a in self.agents.values()],
            "sessions": [asdict(s) for s in self.sessions.values()],
        }
        partial = f"{path}.partial"
        with open(partial, "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(partial, path)

    def read_store(self, path: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            with open(path, encoding="utf-8") as source:
                data = json.load(source)
            self.credentials.update({c["id"]: Credential(**c) for c in data.get("credentials", [])})
            self.agents.update({a["id"]: Agent(**a) for a in data.get("agents", [])})
            self.sessions.update({s["id"]: Session(**s) for s in data.get("sessions", [])})

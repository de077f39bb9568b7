"""The Hypothesis example database that sequence and fuzz cases share (--db): a folder, or Redis
that many processes and machines share live.

Hypothesis replays what a database holds for a test before it generates anything new, so a
failure one campaign worker finds is tried first by every other worker, and by any later run
given the same --db. Keys are namespaced by target, spec revision and case: campaigns against
different agents may share one Redis without mixing (the agent's own name is in the namespace
when the campaign gives one).
"""

from __future__ import annotations

import contextvars
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from conformance.core.errors import UsageError

__all__ = [
    "CaseScope",
    "FallbackDatabase",
    "NamespacedDatabase",
    "case_scope",
    "database_for_case",
    "open_database",
    "scope_reset",
]


@dataclass(frozen=True)
class CaseScope:
    """The case whose Hypothesis run asks for a database, and the run's database: set by the
    runtime around each case (the run's own, never the process's), copied into the worker threads
    its Hypothesis runs use."""

    target: str
    revision: str
    case_id: str
    database: ExampleDatabase | None = None  # the run's --db; None: each profile's own
    agent: str = ""  # the agent's own name (from its handshake), made safe for a key


_SCOPE: contextvars.ContextVar[CaseScope | None] = contextvars.ContextVar("case_scope", default=None)


def case_scope(
    target: str, revision: str, case_id: str, *, database: ExampleDatabase | None = None, agent: str = ""
) -> contextvars.Token:
    """Run a case in this scope. ``agent``: the agent's own name, part of every key, so campaigns
    against different agents never replay each other's examples."""
    safe = "".join(c if c.isalnum() or c in "-_.@" else "_" for c in agent)[:80]
    return _SCOPE.set(CaseScope(target, revision, case_id, database, safe))


def scope_reset(token: contextvars.Token) -> None:
    _SCOPE.reset(token)


def running_case() -> str:
    """The id of the case running in this context ("" outside a case)."""
    scope = _SCOPE.get()
    return scope.case_id if scope else ""


def database_for_case(generation: str = "") -> ExampleDatabase | None:
    """The run's database seen through the running case's namespace (and the profile's way of
    drawing, ``generation``); None outside a case or when no --db is given."""
    scope = _SCOPE.get()
    if scope is None or scope.database is None:
        return None
    namespace = namespace_of(scope.target, scope.revision, scope.case_id, extra=scope.agent)
    return NamespacedDatabase(scope.database, namespace + (f"{generation}/".encode() if generation else b""))


def namespace_of(target: str, revision: str, case_id: str, *, extra: str = "") -> bytes:
    parts = [p for p in (extra, target, revision, case_id) if p]
    return ("/".join(parts) + "/").encode()


def open_database(spec: str, *, local: Path) -> ExampleDatabase:
    """``redis://host:port/N`` (checked now: an unreachable server is a usage error) or a folder.
    ``local``: where a Redis database keeps its own copy, and goes on alone once Redis is lost."""
    if spec.startswith(("redis://", "rediss://", "unix://")):
        try:
            import redis
            import redis.exceptions
            from hypothesis.extra.redis import RedisExampleDatabase
        except ImportError:
            raise UsageError(
                "--db redis://… needs the redis client: pip install 'session-status-conformance[campaign]'"
            ) from None
        client = redis.Redis.from_url(spec, socket_timeout=5, socket_connect_timeout=5)
        try:
            client.ping()
        except (redis.exceptions.RedisError, OSError) as exc:
            raise UsageError(f"--db {spec}: cannot reach Redis ({_first_line(exc)})") from None
        return FallbackDatabase(
            RedisExampleDatabase(client, key_prefix=b"session-status-conformance:"), local, spec
        )
    path = Path(spec)
    if path.exists() and not path.is_dir():
        raise UsageError(f"--db {spec!r} is a file, not a folder (or give redis://host:port/N)")
    return DirectoryBasedExampleDatabase(str(path))


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0][:200]


class NamespacedDatabase(ExampleDatabase):
    """Another database, every key under a prefix."""

    def __init__(self, inner: ExampleDatabase, prefix: bytes) -> None:
        super().__init__()
        self.inner = inner
        self.prefix = prefix

    def __repr__(self) -> str:
        return f"NamespacedDatabase({self.inner!r}, {self.prefix!r})"

    def save(self, key: bytes, value: bytes) -> None:
        self.inner.save(self.prefix + key, value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return self.inner.fetch(self.prefix + key)

    def delete(self, key: bytes, value: bytes) -> None:
        self.inner.delete(self.prefix + key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.inner.move(self.prefix + src, self.prefix + dest, value)


class FallbackDatabase(ExampleDatabase):
    """Redis, written through to a local folder; once Redis is lost, the folder alone.

    Every save also lands in the folder, so nothing found is lost with the server. Losing it is
    said once on stderr and recorded (``lost``) for the run's report."""

    def __init__(self, primary: ExampleDatabase, local: Path, where: str) -> None:
        super().__init__()
        self.primary = primary
        self.local = DirectoryBasedExampleDatabase(str(local))
        self.where = where
        self.lost: str | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"FallbackDatabase({self.where!r}, lost={self.lost!r})"

    def _primary(self, operation: str, *args: Any) -> Any:
        if self.lost is not None:
            return None
        try:
            result = getattr(self.primary, operation)(*args)
            return list(result) if operation == "fetch" else result
        except Exception as exc:  # redis.ConnectionError, TimeoutError, OSError: the server is gone
            with self._lock:
                if self.lost is None:
                    self.lost = f"{self.where}: {_first_line(exc)}"
                    print(
                        f"warning: the example database at {self.where} was lost ({_first_line(exc)}); "
                        "going on with the local copy",
                        file=sys.stderr,
                        flush=True,
                    )
            return None

    def save(self, key: bytes, value: bytes) -> None:
        self.local.save(key, value)
        self._primary("save", key, value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        seen: set[bytes] = set()
        for value in [*(self._primary("fetch", key) or []), *self.local.fetch(key)]:
            if value not in seen:
                seen.add(value)
                yield value

    def delete(self, key: bytes, value: bytes) -> None:
        self.local.delete(key, value)
        self._primary("delete", key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.local.move(src, dest, value)
        self._primary("move", src, dest, value)

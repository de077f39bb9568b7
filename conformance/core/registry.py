"""The case registry: every conformance case is a small async function with metadata.

A case is declared with :func:`case`; its id is a stable slug (never a position), its level
says what breaking it means, and its spec reference quotes the sentence it checks. Revisions
of a spec are data (``SpecRef.source``), so a later revision adds references, not code.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CASES",
    "Case",
    "DuplicateCaseError",
    "Level",
    "SpecRef",
    "case",
    "cases_in_order",
    "target_of_module",
]

SLUG = re.compile(r"^[a-z][a-z0-9]*(?:[.-][a-z0-9]+)*$")


class Level(enum.Enum):
    """What breaking a case means. MUST, SHOULD and MAY are the status specs' own keywords and
    decide the certificate (SHOULD only under --strict). ROBUSTNESS is the JSON-RPC layer on
    frames the protocol never carries (not an object, batches, ids past 2^53, invalid UTF-8,
    oversized lines, text on stdout): shown and counted in its own row, never deciding the
    verdict unless --strict."""

    MUST = "MUST"
    SHOULD = "SHOULD"
    MAY = "MAY"
    ROBUSTNESS = "ROBUSTNESS"

    @property
    def decides_certificate(self) -> bool:
        return self is not Level.ROBUSTNESS

    @property
    def marker(self) -> str:
        return self.value.lower()


@dataclass(frozen=True)
class SpecRef:
    """Where a requirement comes from: a spec source, its section, and the sentence quoted."""

    source: str
    section: str
    sentence: str
    url: str = ""  # where a reader finds the section (report links, Allure link)


@dataclass(frozen=True)
class Case:
    id: str
    level: Level
    spec: SpecRef
    needs: tuple[str, ...]
    func: Callable[..., Awaitable[None]] = field(compare=False)
    module: str = ""
    title: str = ""
    # The case judges the initialize exchange, so its transcript starts with that exchange.
    shows_handshake: bool = False
    # Named checks inside one case (a sequence model's rules, a fuzzer's checks): a failure names
    # the rule it broke, and each revision maps "case#rule" to the sentence that rule checks.
    rules: tuple[str, ...] = ()
    # The case takes seconds, not milliseconds: a Hypothesis sequence or fuzzer, a restart, a timed
    # or model-driven turn, a watch of --hold seconds. A run that must be quick can leave it out.
    slow: bool = False
    # The system the case certifies: the package its module is in (conformance.cases.mcp -> "mcp"),
    # set by the registry when the case is declared.
    target: str = field(kw_only=True)

    def rule_id(self, rule: str) -> str:
        return f"{self.id}#{rule}"

    @property
    def area(self) -> str:
        return self.id.rsplit(".", 1)[0] if "." in self.id else self.id


def target_of_module(module: str) -> str:
    """A case's target is the package it is declared in: conformance.cases.acp.identity -> "acp",
    another distribution's their_target.cases.a2a.tasks -> "a2a"."""
    package = module.rpartition(".")[0].rpartition(".")[2]
    if package in ("", "cases"):
        raise ValueError(f"case module {module!r} is in no target's folder: put it in cases/<target>/")
    return package


class DuplicateCaseError(Exception):
    pass


CASES: dict[str, Case] = {}


def case(
    id: str,
    *,
    level: Level,
    spec: SpecRef,
    needs: tuple[str, ...] = ("status",),
    shows_handshake: bool = False,
    rules: tuple[str, ...] = (),
    slow: bool = False,
) -> Callable[[Callable[..., Awaitable[Any]]], Callable[..., Awaitable[Any]]]:
    """Register ``func`` as the conformance case ``id``."""
    if not SLUG.match(id):
        raise ValueError(
            f"case id {id!r} is not a slug: use lowercase words joined by '.' and '-', "
            "e.g. 'status.error.unknown-session-code'"
        )
    bad_rules = [r for r in rules if not SLUG.match(r)]
    if bad_rules:
        raise ValueError(f"case {id!r}: rule names must be slugs like 'unknown-error-data': {bad_rules}")
    # What a case may need is its target's to say (the declaration's ``needs``): the runtime refuses
    # a need the target does not declare, and tests/unit/test_architecture.py checks every case.

    def register(func: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        existing = CASES.get(id)
        if existing is not None and _origin(existing.func) != _origin(func):
            raise DuplicateCaseError(
                f"case id {id!r} is declared twice: in {existing.module}.{existing.func.__qualname__} and "
                f"{func.__module__}.{func.__qualname__}; ids are permanent, so give the newer case a new id"
            )
        doc = (func.__doc__ or "").strip().splitlines()
        CASES[id] = Case(
            id=id,
            level=level,
            spec=spec,
            needs=tuple(needs),
            func=func,
            module=func.__module__,
            title=doc[0] if doc else id,
            shows_handshake=shows_handshake,
            rules=tuple(rules),
            slow=slow,
            target=target_of_module(func.__module__),
        )
        return func

    return register


def _origin(func: Callable[..., Any]) -> tuple[str, str]:
    # Compare by file and name, not module name: one file imported under two names is one case.
    return (func.__code__.co_filename, func.__qualname__)


def cases_in_order(module: str | None = None) -> list[Case]:
    """Cases in declaration order, optionally only those of one module."""
    return [c for c in CASES.values() if module is None or c.module == module]

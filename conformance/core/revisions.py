"""Spec revisions the suite knows, which one a run checks, and each one's status vocabulary.

Agents in the wild speak two revisions of session/status: the RFD of 2026-10-26 (`active` /
`inactive`) and the official schema of @agentclientprotocol/sdk 2.4.0 (`open` / `saved`).
A revision is data (``cases/revisions/<name>.toml``). Cases think in canonical names,
``active`` (in memory) and ``inactive`` (known, not in memory); :func:`word` and
:func:`canonical` translate to and from the checked revision's wire words, so messages
show what the agent actually sent.

The checked revision travels with the run: its runtime sets it around each case, in a context
variable, so runs in one process (the project's tests, a campaign) each check their own.
"""

from __future__ import annotations

import contextvars
import functools
from dataclasses import replace
from typing import Any

from conformance.core.registry import SpecRef
from conformance.core.traceability import Revision, load_revision, revision_files

__all__ = [
    "available",
    "canonical",
    "checked",
    "checking",
    "current",
    "default",
    "detect",
    "foreign",
    "get",
    "known_words",
    "requirement",
    "reset",
    "spec_of",
    "use",
    "word",
]

# The revision the running case checks: set by the runtime around each case (its run's own, never
# the process's), copied into the worker threads the case uses.
_CHECKED: contextvars.ContextVar[Revision | None] = contextvars.ContextVar("checked_revision", default=None)


def available(target: str | None = None) -> list[str]:
    """Revision names, optionally only those of one target (acp, mcp, http)."""
    names = sorted(revision_files())
    return names if target is None else [n for n in names if get(n).target == target]


@functools.cache
def get(name: str) -> Revision:
    if name not in available(None):
        raise KeyError(f"unknown spec revision {name!r}: use one of {', '.join(available())}")
    return load_revision(name)


def requirement(revision: str, key: str) -> SpecRef:
    """The sentence a case checks, by its key in the revision file: each spec sentence is written
    once, there, and cases name it (with a short quote beside the name, for the reader)."""
    found = get(revision).by_key(key)
    if found is None:
        raise KeyError(f"{revision} has no requirement with key = {key!r}")
    return SpecRef(found.source, found.section, found.sentence)


def checking(revision: Revision | None) -> contextvars.Token:
    """Check ``revision`` in this context (the runtime, around a case); undone by :func:`reset`."""
    return _CHECKED.set(revision)


def reset(token: contextvars.Token) -> None:
    _CHECKED.reset(token)


def use(name: str) -> Revision:
    """Check revision ``name`` in the caller's context from now on (a tool or a test that drives
    cases itself; a run's runtime sets its own around each case)."""
    revision = get(name)
    _CHECKED.set(revision)
    return revision


def checked() -> Revision | None:
    """The revision checked in this context, if any."""
    return _CHECKED.get()


def current() -> Revision:
    """The revision checked in this context: the running case's run's (or the one a tool chose with
    :func:`use`)."""
    checked = _CHECKED.get()
    if checked is None:
        raise LookupError(
            "no spec revision is checked here: a run sets its own, a tool calls revisions.use()"
        )
    return checked


def spec_of(
    case: Any, rule: str | None = None, key: str | None = None, *, revision: str | None = None
) -> SpecRef:
    """The sentence the checked revision (``revision``, else this context's) has this case check
    (the case's own quote by default), with the link the revision file gives its source. With
    ``rule``, the sentence of that rule of the case; with ``key``, the sentence the revision names
    for a finding of the harness's own (an unanswered request, a broken envelope) whichever case
    it arrived in."""
    checked = get(revision) if revision else _CHECKED.get() or get(default(case.target))
    if key is not None and (found := checked.by_key(key)) is not None:
        return SpecRef(found.source, found.section, found.sentence, checked.url_for(found))
    req = checked.spec_for(case.id, rule)
    if req is None or (req.source, req.sentence) == (case.spec.source, case.spec.sentence):
        home = checked if req is not None else get(default(case.target))
        own = home.quoting(case.spec.source, case.spec.sentence)
        return replace(case.spec, url=home.url_for(own) if own else "")
    return SpecRef(req.source, req.section, req.sentence, checked.url_for(req))


def word(name: str) -> str:
    """The checked revision's wire word for a canonical status name."""
    return current().vocabulary.get(name, name)


def canonical(value: object) -> str | None:
    """``active`` / ``inactive`` for a wire word of the checked revision, else None."""
    for name, wire in current().vocabulary.items():
        if value == wire:
            return name
    return None


def known_words() -> frozenset[str]:
    return frozenset(current().vocabulary.values())


def foreign(value: object) -> str | None:
    """The other revision whose vocabulary has this word, when the checked one does not."""
    if value in known_words():
        return None
    for name in available(current().target):
        if name != current().name and value in get(name).vocabulary.values():
            return name
    return None


def default(target: str) -> str:
    """The revision a target's run checks when none is chosen or detected: the one its revision
    files mark ``default = true``, else its only (or first) one."""
    names = available(target)
    if not names:
        raise KeyError(f"no spec revision maps the cases of target {target!r}")
    return next((n for n in names if get(n).default), names[0])


def detect(value: object, target: str) -> tuple[str, str]:
    """The revision a target's system speaks, from its status word for a session it has just created."""
    for name in available(target):
        if get(name).vocabulary.get("active") == value:
            return name, f"the agent answered {value!r} for a session it had just created"
    for name in available(target):  # the right revision's other word: its cases will say what is wrong
        if get(name).vocabulary.get("inactive") == value:
            return name, (
                f"the agent answered {value!r} (this revision's word for not in memory) for a session it "
                "had just created"
            )
    return (
        default(target),
        f"the agent answered {str(value)[:60]!r} for a new session, which no known revision names; checked against the default",
    )

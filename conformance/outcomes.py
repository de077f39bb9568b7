"""Outcomes and verdicts, mapped in one place.

A case function signals what it found by returning (pass) or raising one of the typed
results below. :func:`classify` turns that into an :class:`Outcome` using the case's level;
:func:`verdict` turns all outcomes of a run into the verdict and the process exit code.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .registry import Level

__all__ = [
    "AgentExited",
    "CaseResult",
    "HarnessError",
    "Info",
    "MissingInput",
    "NotApplicable",
    "NotTestable",
    "Outcome",
    "Unimplemented",
    "Verdict",
    "Violation",
    "classify",
    "verdict",
]


class Outcome(enum.Enum):
    PASS = "pass"
    FAIL = "fail"  # a MUST (or a MAY's boundary) broken, or a prerequisite the agent advertised
    WARN = "warn"  # a SHOULD broken; fail under --strict
    INFO = "info"  # a MAY path taken
    UNIMPLEMENTED = "unimplemented"  # the capability the case needs is not advertised
    NOT_APPLICABLE = "n/a"  # the behaviour the case checks cannot arise with this agent
    NOT_TESTABLE = "not-testable"  # the case needs an input the user did not give
    ERROR = "error"  # the harness or the agent crashed


# How each outcome reads in pytest's terminal line: (category, letter, word).
TERMINAL = {
    Outcome.PASS: ("passed", ".", "PASS"),
    Outcome.FAIL: ("failed", "F", "FAIL"),
    Outcome.WARN: ("warn", "W", "WARN"),
    Outcome.INFO: ("info", "I", "INFO"),
    Outcome.UNIMPLEMENTED: ("unimplemented", "U", "UNIMPLEMENTED"),
    Outcome.NOT_APPLICABLE: ("n/a", "-", "N/A"),
    Outcome.NOT_TESTABLE: ("not testable", "T", "NOT TESTABLE"),
    Outcome.ERROR: ("error", "E", "ERROR"),
}


class CaseSignal(Exception):
    """Base of everything a case raises on purpose."""

    def __init__(self, message: str, *, expected: Any = None, observed: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.observed = observed


class Violation(CaseSignal):
    """The agent broke the requirement the case checks."""


class NotTestable(CaseSignal):
    """A prerequisite the agent advertised did not work, so the requirement could not be checked.

    This is a failure, not a skip: the agent claimed what it could not do.
    """


class Info(CaseSignal):
    """The agent took a path the spec allows with MAY."""


class NotApplicable(CaseSignal):
    """The behaviour checked cannot arise with this agent (e.g. a MAY path it does not take)."""


class Unimplemented(CaseSignal):
    """The capability the case needs is not advertised."""


class MissingInput(CaseSignal):
    """The case needs an input the user did not pass (a second credential, an operator hook)."""


class HarnessError(CaseSignal):
    """The suite itself could not run the case."""


class AgentExited(Exception):
    """The agent process exited while the suite was waiting for it."""

    def __init__(self, code: int | None, stderr_tail: str) -> None:
        self.code = code
        self.stderr_tail = stderr_tail
        super().__init__(
            f"agent exited with code {code}" + (f"; stderr tail:\n{stderr_tail}" if stderr_tail else "")
        )


@dataclass
class CaseResult:
    outcome: Outcome
    message: str
    expected: Any = None
    observed: Any = None


def classify(exc: BaseException | None, level: Level, *, strict: bool = False) -> CaseResult:
    """Map what a case raised (or ``None`` for a clean return) to its outcome."""
    if exc is None:
        return CaseResult(Outcome.PASS, "")
    if isinstance(exc, CaseSignal):
        kind: Outcome
        message = exc.message
        if isinstance(exc, Violation):
            kind = Outcome.WARN if level is Level.SHOULD and not strict else Outcome.FAIL
        elif isinstance(exc, NotTestable):
            kind, message = Outcome.FAIL, f"not testable: {exc.message}"
        elif isinstance(exc, Info):
            kind = Outcome.INFO
        elif isinstance(exc, NotApplicable):
            kind = Outcome.NOT_APPLICABLE
        elif isinstance(exc, Unimplemented):
            kind = Outcome.UNIMPLEMENTED
        elif isinstance(exc, MissingInput):
            kind, message = Outcome.NOT_TESTABLE, f"not testable: {exc.message}"
        else:
            kind = Outcome.ERROR
        return CaseResult(kind, message, exc.expected, exc.observed)
    if isinstance(exc, AgentExited):
        return CaseResult(Outcome.ERROR, str(exc))
    if isinstance(exc, TimeoutError):
        return CaseResult(Outcome.ERROR, f"timed out: {exc}")
    if type(exc).__name__.startswith("Flaky"):  # Hypothesis: a failure that did not replay
        inner = getattr(exc, "exceptions", None)  # FlakyFailure groups the failure it first saw
        source = inner[0] if inner else exc
        first = str(source).strip().splitlines()[0][:300] if str(source).strip() else ""
        return CaseResult(
            Outcome.ERROR,
            "the agent's behaviour was not reproducible: an input failed once and behaved differently when "
            f"replayed (it died, restarted, or answered differently); first failure: {type(source).__name__}: {first}",
        )
    return CaseResult(Outcome.ERROR, f"harness error: {type(exc).__name__}: {exc}")


class Verdict(enum.Enum):
    CONFORMANT = ("conformant", 0, "the agent conforms: no MUST requirement is broken")
    NON_CONFORMANT = ("non-conformant", 1, "the agent breaks at least one MUST requirement")
    ERROR = ("error", 2, "the suite could not finish: a case errored (harness or agent crash)")
    UNIMPLEMENTED = ("unimplemented", 3, "the agent does not advertise session/status")
    INCOMPLETE = ("incomplete", 2, "the run was interrupted before every selected case ran")

    @property
    def label(self) -> str:
        return self.value[0]

    @property
    def exit_code(self) -> int:
        return self.value[1]

    @property
    def explanation(self) -> str:
        return self.value[2]


def verdict(outcomes: Iterable[Outcome], *, status_advertised: bool) -> Verdict:
    seen = set(outcomes)
    if Outcome.FAIL in seen:
        return Verdict.NON_CONFORMANT
    if Outcome.ERROR in seen:
        return Verdict.ERROR
    if not status_advertised:
        return Verdict.UNIMPLEMENTED
    return Verdict.CONFORMANT

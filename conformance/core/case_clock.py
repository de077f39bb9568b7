"""The time a case may take in all, and what is left of it, for a case that decides how many more
rounds it can play (a case past its budget ends as an error, whatever it had found)."""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

__all__ = ["CASE_BUDGET", "Budget", "case_budget", "current", "now"]

CASE_BUDGET = 600.0  # seconds one case may take in all (or two --turn-timeouts, if longer)


@dataclass(frozen=True)
class Budget:
    seconds: float
    ends: float  # on ``clock``
    clock: Callable[[], float]

    def left(self) -> float:
        return self.ends - self.clock()


_CURRENT: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("case_budget", default=None)


@contextlib.contextmanager
def case_budget(seconds: float, clock: Callable[[], float] = time.monotonic) -> Iterator[Budget]:
    """The running case's budget: ``seconds`` from now on ``clock``."""
    budget = Budget(seconds, clock() + seconds, clock)
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)


def current() -> Budget | None:
    """The budget of the case running in this task, or None outside a case."""
    return _CURRENT.get()


def now() -> float:
    """The running case's clock (the monotonic clock outside a case)."""
    budget = _CURRENT.get()
    return budget.clock() if budget is not None else time.monotonic()

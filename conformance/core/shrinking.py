"""Shrinking a failing step list by replaying it, for the sequences Hypothesis does not draw.

A drawn sequence that failed is cut to the steps up to its failure, then steps are removed one at
a time while the shorter list still fails the same way; a list the target's own rules do not allow
(an answer with nothing to answer) is never tried. The result is 1-minimal: no single step of it
can go. Each trial is one replay on the implementation, so ``deadline`` bounds the search (the
shortest list found by then is kept).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

__all__ = ["shrink_steps"]

Step = TypeVar("Step")


async def shrink_steps(
    steps: Sequence[Step],
    fails: Callable[[list[Step]], Awaitable[int | None]],
    *,
    valid: Callable[[list[Step]], bool] = lambda _: True,
    deadline: float | None = None,
) -> tuple[list[Step], int]:
    """The shortest failing list found, and how many replays it took. ``fails`` replays a list and
    answers None when it does not fail the same way, else how many of its steps the failure needed
    (the rest is cut: the steps after a failure cannot have caused it)."""
    current, replays, changed = list(steps), 0, True
    # Passes until one removes nothing: a step that could not go may once a later one has gone.
    while changed:
        changed, i = False, 0
        while i < len(current):
            if deadline is not None and time.monotonic() >= deadline:
                return current, replays
            trial = current[:i] + current[i + 1 :]
            if not trial or not valid(trial):
                i += 1
                continue
            replays += 1
            needed = await fails(trial)
            if needed is None:
                i += 1
                continue
            cut = trial[: max(1, needed)]
            current, changed = (cut if valid(cut) else trial), True
    return current, replays

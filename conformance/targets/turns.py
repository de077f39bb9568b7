"""The turn clock and the prompt budget of a target whose system takes turns (the optional hook
``TargetHooks.turn_method``): every prompt the suite sends is a model call for a real agent (a
paid one, usually), so a run counts them and can be capped (--max-prompts), and a turn that does
not end within --turn-timeout case after case stops the cases that prompt from waiting it out again.

One run may be several processes (pytest-xdist workers, each with its own agent): they count in
one file, under a lock, so the cap holds for the run and not per worker.
"""

from __future__ import annotations

import collections
import fcntl
import os
from pathlib import Path

from conformance.core.outcomes import NoTurn

__all__ = ["TURN_SILENT_LIMIT", "PromptLedger", "Turns", "new_ledger"]

# Cases in a row whose turn did not end within --turn-timeout: the cases after them end at their
# first prompt (not testable). A slow turn never skips a case that does not prompt.
TURN_SILENT_LIMIT = 2


def new_ledger(path: Path) -> str:
    """A fresh ledger file for a run's workers (written by the run's controller before they start)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("0", encoding="utf-8")
    return str(path)


class PromptLedger:
    """``limit``: the most prompts the run may send (None: no cap); ``path``: a file the run's
    processes share (None: this process counts alone)."""

    def __init__(self, limit: int | None, path: str | None = None) -> None:
        self.limit = limit
        self.path = path
        self._here = 0  # taken by this process

    def take(self) -> bool:
        """Count one more prompt, if the cap allows it: True when it may be sent."""
        if self.limit is None:
            self._here += 1
            return True
        if self.path is None:
            if self._here >= self.limit:
                return False
            self._here += 1
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            text = os.read(fd, 64).decode("ascii", errors="replace").strip()
            spent = int(text) if text.isdigit() else 0
            if spent >= self.limit:
                return False
            os.lseek(fd, 0, os.SEEK_SET)
            os.ftruncate(fd, 0)
            os.write(fd, str(spent + 1).encode("ascii"))
            self._here += 1
            return True
        finally:
            os.close(fd)  # closing the descriptor releases the lock


class Turns:
    """One run's turns (on one worker): the prompts each case sends, counted against the run's
    budget, and the cases in a row whose turn did not end in time. ``method``: the target's
    ``turn_method`` (None: its system takes no turns, and its cases never prompt)."""

    def __init__(
        self, method: str | None, turn_timeout: float, limit: int | None, ledger: str | None
    ) -> None:
        self.method = method
        self.turn_timeout = turn_timeout
        self.prompts = PromptLedger(limit, ledger)
        self.silent: list[str] = []  # the cases in a row whose turn did not end in time
        self.case_prompts = 0  # prompts the current case sent
        # The current case waited out the turn clock for a turn's end that never came, without
        # the wait raising (a case's cleanup): counted as a turn that did not end.
        self.case_ran_out = False

    def new_case(self) -> None:
        self.case_prompts = 0
        self.case_ran_out = False

    def take(self) -> None:
        """Before a prompt: counted, or refused with NoTurn."""
        if len(self.silent) >= TURN_SILENT_LIMIT:
            raise NoTurn(
                f"not testable: the case needs a turn, and the turn did not end within --turn-timeout "
                f"({self.turn_timeout:g} s) in {len(self.silent)} cases in a row "
                f"({', '.join(self.silent)}), so it would only wait that out again: an unreachable model, or "
                "turns slower than --turn-timeout allows (pass a larger one); see those cases' transcripts",
                "turns did not end within --turn-timeout in earlier cases",
            )
        if not self.prompts.take():
            raise NoTurn(
                f"not testable: the case needs a turn, and the run's prompt budget is spent (--max-prompts "
                f"{self.prompts.limit}: each prompt is a model call for a real agent); a larger --max-prompts "
                "tests it",
                f"the run's prompt budget is spent (--max-prompts {self.prompts.limit})",
            )
        self.case_prompts += 1

    def ran_out(self) -> None:
        """The current case waited the whole turn clock for a turn's end that never came."""
        self.case_ran_out = True

    def end_case(self, case_id: str, timed_out: bool, answered: collections.Counter[str]) -> bool:
        """After a case: whether a turn of it did not end (``timed_out``: it raised at the turn
        clock, or ran it out); a case whose turn was answered clears the count of silent ones."""
        turn = timed_out or self.case_ran_out
        if turn:
            self.silent.append(case_id)
        elif self.method is not None and answered[self.method]:
            self.silent.clear()
        return turn

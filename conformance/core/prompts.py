"""The run's prompt count against --max-prompts: every prompt the suite sends is a model call for a
real agent (a paid one, usually), so a run counts them and can be capped.

One run may be several processes (pytest-xdist workers, each with its own agent): they count in
one file, under a lock, so the cap holds for the run and not per worker.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

__all__ = ["PromptLedger", "new_ledger"]


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

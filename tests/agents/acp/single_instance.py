"""Conforming: one process per working directory. At start it takes a lock file in its state
folder (its pid); while another live process holds it, it says so on stderr and exits 1 before
reading a frame, as agents that keep one store per project do. A second process of the same
command beside the first never comes up; the agent restarted in the same folder does (the old
process is gone). Nothing fails, under --strict too.
"""

import contextlib
import os
import sys
from pathlib import Path

import _base

from conformance.reference.acp.agent import STATE_DIR, ReferenceAgent, main


def holder_alive(lock: Path) -> bool:
    try:
        pid = int(lock.read_text().strip() or "0")
    except (OSError, ValueError):
        return False
    if pid <= 0 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def take_lock() -> None:
    folder = Path.cwd() / STATE_DIR
    folder.mkdir(parents=True, exist_ok=True)
    lock = folder / "agent.lock"
    if holder_alive(lock):
        print(f"another agent process holds {lock}; one process per working directory", file=sys.stderr)
        sys.exit(1)
    with contextlib.suppress(OSError):
        lock.write_text(str(os.getpid()))


take_lock()
main(ReferenceAgent)

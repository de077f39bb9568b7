"""A campaign's workers and their rounds (each a run of the suite on one case), as the campaign
and its report see them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Round", "Worker", "read_json"]


@dataclass
class Round:
    worker: int
    number: int
    seed: int
    folder: Path
    started: float
    case: str = ""
    ended: float | None = None
    code: int | None = None
    examples: int = 0
    findings: int = 0


@dataclass
class Worker:
    index: int
    rounds: list[Round] = field(default_factory=list)
    done_examples: int = 0  # examples of its finished rounds
    timeline: list[tuple[float, int]] = field(default_factory=list)

    def live(self) -> tuple[int, dict[str, Any]]:
        """Examples so far (finished rounds and the running one) and the running round's progress."""
        data = read_json(self.rounds[-1].folder / "progress.json") if self.rounds else None
        running = (
            sum((data or {}).get("examples", {}).values())
            if self.rounds and self.rounds[-1].ended is None
            else 0
        )
        return self.done_examples + running, data or {}


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None

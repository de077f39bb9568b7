"""Text as reports and consoles show it: agent-supplied text cleaned of terminal control
sequences, long values shortened between words, a partial run's selection in words."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["clean", "describe_selection", "shorten"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]|\x1b\[[0-?]*[ -/]*[@-~]?|\x1b.?")


def clean(text: str) -> str:
    """Strip terminal control sequences from agent-supplied text before it reaches a console."""
    return _CONTROL.sub("", text)


def shorten(text: str, limit: int) -> str:
    """``text`` bounded near ``limit`` characters, cut only between words: a path, a command or an
    id in it is never cut in the middle (a word longer than the rest of the budget is kept whole,
    up to four times the limit)."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit + 1)
    if cut <= 0 or cut < limit // 2:
        end = text.find(" ", limit)
        cut = end if 0 < end <= 4 * limit else min(len(text), 4 * limit)
    rest = len(text) - cut
    return text if rest <= 0 else f"{text[:cut]} …[{rest} more chars]"


def describe_selection(selection: dict[str, Any]) -> str:
    parts = []
    if selection.get("keyword"):
        parts.append(f"-k {selection['keyword']!r}")
    if selection.get("markers"):
        parts.append(f"-m {selection['markers']!r}")
    if selection.get("args"):
        parts.append("only " + ", ".join(selection["args"]))
    if selection.get("stopped"):  # pytest stopped the run (-x, --maxfail): the rest did not run
        parts.append(f"{selection['stopped']}: {selection['deselected']} not run")
    else:
        parts.append(f"{selection['deselected']} deselected")
    return "; ".join(parts)

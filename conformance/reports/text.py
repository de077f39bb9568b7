"""Text as reports and consoles show it: agent-supplied text cleaned of terminal control
sequences, long values shortened between words, a partial run's selection in words."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["clean", "describe_selection", "jsonable", "prompts_why", "shorten"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]|\x1b\[[0-?]*[ -/]*[@-~]?|\x1b.?")


def clean(text: str) -> str:
    """Strip terminal control sequences from agent-supplied text before it reaches a console."""
    return _CONTROL.sub("", text)


# A value a case records that JSON has no type for is kept as its repr, this long at most.
_REPR_LIMIT = 500


def jsonable(value: Any) -> Any:
    """``value`` as JSON can hold it, whatever a case recorded: dicts (keys as strings), lists
    (tuples and sets too), strings, numbers, booleans and None are kept; anything else (a marker
    object, bytes, an exception, a path) becomes its repr, bounded. A report is written whatever a
    case put in it."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else repr(value)
    if isinstance(value, dict):
        return {k if isinstance(k, str) else _repr(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return [jsonable(v) for v in items]
    return _repr(value)


def _repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # a hostile __repr__ must not break the report either
        text = f"<{type(value).__name__}: repr failed: {type(exc).__name__}>"
    return (
        text if len(text) <= _REPR_LIMIT else f"{text[:_REPR_LIMIT]} …[{len(text) - _REPR_LIMIT} more chars]"
    )


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


def prompts_why(sent: list[tuple[int, str]], limited: bool) -> str:
    """Why a run sent as many prompts as it did, for the cost line: the case that sent the most
    when it sent more than the scripted cases do (the generated cases, sequences and fuzzers,
    prompt for their time budget: fast turns send many), and what bounds them for a real model.
    ``sent``: (prompts, case id) of each case."""
    counts = sorted(sent, reverse=True)
    if not counts or counts[0][0] < GENERATED_PROMPTS_NOTED:
        return ""
    most, case_id = counts[0]
    cap = "" if limited else "; --max-prompts N caps them"
    return (
        f"; {most} by {case_id}, which prompts for its time budget (--profile): fast turns send many, turns of "
        f"T seconds about budget ÷ T{cap}"
    )


# A case that sent this many prompts or more is named in the cost line as what sent them.
GENERATED_PROMPTS_NOTED = 50

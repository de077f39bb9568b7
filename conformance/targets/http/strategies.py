"""Hypothesis strategies for the HTTP target: the caller's session id in other forms.

A form is the real id after one to three edits a lookup might confuse with it: a letter case
changed over a span, characters inserted (spaces, zero-width and no-break spaces, a combining
accent, punctuation) or deleted, ASCII turned fullwidth (what NFKC folds back), the id cut short
or extended. Edits are drawn relative to the id (positions as fractions of its length), so a
saved example means the same edit on the next run's session id. Written directly
(hypothesis-jsonschema does not work with current Hypothesis).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

__all__ = ["EDITS", "IdForm", "apply_edits", "id_edits"]

# Inserted characters: each one a lookup could drop or fold (strip, NFKC, casefold, slugify).
INSERTS = (" ", "\t", "\u200b", "\ufeff", "\u00a0", "\u0301", "-", "_", ".", "0", "%", "+", "~")
EDITS = ("upper", "lower", "swapcase", "insert", "delete", "fullwidth", "truncate", "extend")


@dataclass(frozen=True)
class IdForm:
    """Edits to apply to the caller's session id; ``value`` is the form they made of it."""

    edits: tuple[tuple[str, float, float, str], ...]  # (kind, start, end as fractions, text)
    value: str = ""

    def describe(self) -> str:
        shown = "; ".join(
            f"{kind} {a:.2f}-{b:.2f}{f' {text!r}' if text else ''}" for kind, a, b, text in self.edits
        )
        return f"{self.value!r} (the session id after: {shown})"

    def to_json(self) -> dict[str, Any]:
        return {"edits": [list(e) for e in self.edits], "value": self.value}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> IdForm:
        edits = tuple((str(k), float(a), float(b), str(t)) for k, a, b, t in data["edits"])
        return cls(edits, str(data.get("value", "")))


def _span(value: str, start: float, end: float) -> tuple[int, int]:
    a, b = sorted((int(start * len(value)), int(end * len(value))))
    return a, max(b, a + 1)


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def apply_edits(real: str, edits: tuple[tuple[str, float, float, str], ...]) -> str:
    """The form ``edits`` make of ``real`` (the same edits give the same kind of form of any id)."""
    value = real
    for kind, start, end, text in edits:
        a, b = _span(value, start, end)
        if kind in ("upper", "lower", "swapcase", "fullwidth"):
            change = {
                "upper": str.upper,
                "lower": str.lower,
                "swapcase": str.swapcase,
                "fullwidth": _fullwidth,
            }[kind]
            value = value[:a] + change(value[a:b]) + value[b:]
        elif kind == "insert":
            value = value[:a] + text + value[a:]
        elif kind == "delete":
            value = value[:a] + value[b:]
        elif kind == "truncate":
            value = value[: max(1, a)]
        elif kind == "extend":
            value = value + text
    return value


_fraction = st.floats(0, 1, allow_nan=False).map(lambda f: round(f, 3))
_edit = st.tuples(
    st.sampled_from(EDITS),
    _fraction,
    _fraction,
    st.one_of(
        st.sampled_from(INSERTS),
        st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=3),
    ),
).map(lambda e: e if e[0] in ("insert", "extend") else (e[0], e[1], e[2], ""))


def id_edits(real: str) -> st.SearchStrategy[IdForm]:
    """Forms of ``real`` that differ from it and can travel as one URL path segment: not empty,
    no ``/`` (servers differ on an encoded one: another route, not another id), not only dots."""

    def form(edits: Sequence[tuple[str, float, float, str]]) -> IdForm:
        return IdForm(tuple(edits), apply_edits(real, tuple(edits)))

    return (
        st.lists(_edit, min_size=1, max_size=3)
        .map(form)
        .filter(
            lambda f: (
                f.value != real and f.value.strip(".") != "" and "/" not in f.value and len(f.value) <= 300
            )
        )
    )

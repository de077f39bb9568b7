"""Other spellings of a session id: the forms a loosened lookup (case folding, trimming, Unicode
normalisation, prefix matching) would take for the same session.

Used by the identity case (each spelling is another id, so not the session) and by reproductions
(a spelling of a recorded id is respelled from the id the fresh agent gave)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

__all__ = ["SPELLINGS", "spellings"]


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


SPELLINGS: dict[str, Callable[[str], str]] = {
    "upper case": str.upper,
    "swapped case": str.swapcase,
    "surrounding spaces": lambda s: f" {s} ",
    "a trailing newline": lambda s: s + "\n",
    "a trailing NUL": lambda s: s + "\x00",
    "its prefix": lambda s: s[:-1],
    "a longer id it prefixes": lambda s: s + "0",
    "full-width (NFKC folds it back)": _fullwidth,
    "NFD form": lambda s: unicodedata.normalize("NFD", s),
    "a relative path to it": lambda s: f"./{s}",  # a lookup that builds a file path from the id
}


def spellings(session_id: str) -> dict[str, str]:
    """Each other spelling of the id that differs from it: {label: spelling}."""
    out = {label: spell(session_id) for label, spell in SPELLINGS.items()}
    return {label: v for label, v in out.items() if v != session_id and v}

"""Other spellings of a session id: the forms a loosened lookup (case folding, trimming, Unicode
normalisation, prefix matching, dropping what is not ASCII) would take for the same session, and the forms a store that cuts
ids at a length limit, or a layer that decodes them as URLs, would take for it.

Used by the identity cases (each spelling is another id, so not the session) and by
reproductions (a spelling of a recorded id is respelled from the id the fresh agent gave)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

__all__ = ["ENCODED", "LIMITS", "LONG", "SPELLINGS", "forms", "spellings"]


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
    # A key that keeps only the ASCII characters (a file-name-safe form, an ASCII-only column)
    # makes these the session.
    "a non-ASCII letter in the middle": lambda s: s[: len(s) // 2] + "é" + s[len(s) // 2 :],
    "a non-ASCII letter appended": lambda s: s + "é",
}


def spellings(session_id: str) -> dict[str, str]:
    """Each other spelling of the id that differs from it: {label: spelling}."""
    out = {label: spell(session_id) for label, spell in SPELLINGS.items()}
    return {label: v for label, v in out.items() if v != session_id and v}


# Common storage limits of an id column or key (VARCHAR(64), 255 and 256 bytes, 1 KiB, 4 KiB).
LIMITS = (64, 255, 256, 1024, 4096)


def _first(n: int, more: str = "") -> Callable[[str], str | None]:
    return lambda s: s[:n] + more if len(s) > n else None


def _padded(n: int) -> Callable[[str], str | None]:
    return lambda s: s + "x" * (n - len(s)) if len(s) < n else None


# A file name's limit is 255 bytes, and a guard that counts characters lets a shorter id of
# multi-byte text through to it.
BYTE_LIMIT = 255


def _past_bytes(char: str) -> Callable[[str], str | None]:
    """The id, a separator, then ``char`` until the whole is past BYTE_LIMIT bytes."""

    def spell(s: str) -> str | None:
        head = (s + "~").encode("utf-8")
        if len(head) > BYTE_LIMIT:
            return None
        width = len(char.encode("utf-8"))
        return s + "~" + char * -(-(BYTE_LIMIT + 1 - len(head)) // width)

    return spell


# An id at a limit or just past it that shares the session's characters up to the limit: a store
# that cuts ids there makes it the session (None: the form does not apply to an id this long).
LONG: dict[str, Callable[[str], str | None]] = {
    **{f"its first {n} characters": _first(n) for n in LIMITS},
    **{f"its first {n} characters and one more": _first(n, "~") for n in LIMITS},
    **{f"padded to {n} characters": _padded(n) for n in LIMITS},
    **{f"padded to {n + 1} characters": _padded(n + 1) for n in LIMITS},
    **{
        f"past {BYTE_LIMIT} bytes in {name} characters": _past_bytes(char)
        for name, char in (("four-byte", "\U0001f642"), ("three-byte", "\u4f1a"), ("two-byte", "\u00e9"))
    },
}


def _one_encoded(twice: bool) -> Callable[[str], str | None]:
    """The id with one character percent-encoded (its first non-alphanumeric one, else its
    first): once, or with the `%` itself encoded again (`%25`)."""

    def spell(s: str) -> str | None:
        if not s:
            return None
        i = next((i for i, c in enumerate(s) if not c.isalnum()), 0)
        code = "".join(f"%{b:02X}" for b in s[i].encode("utf-8"))
        if twice:
            code = code.replace("%", "%25")
        return s[:i] + code + s[i + 1 :]

    return spell


# Forms a layer that reads ids as URLs or paths would decode, or resolve, to the session.
ENCODED: dict[str, Callable[[str], str | None]] = {
    "one character percent-encoded": _one_encoded(twice=False),
    "one character percent-encoded twice (%25)": _one_encoded(twice=True),
    "every character percent-encoded": lambda s: "".join(f"%{b:02X}" for b in s.encode("utf-8")) or None,
    "behind a dot segment (x/../id)": lambda s: f"x/../{s}",
    "behind an encoded dot segment (x%2F..%2Fid)": lambda s: f"x%2F..%2F{s}",
    "behind a dot segment encoded twice (x%252F..%252Fid)": lambda s: f"x%252F..%252F{s}",
    "behind ..%2F": lambda s: f"..%2F{s}",
    "with a trailing slash": lambda s: f"{s}/",
    "the other normalisation form (NFC)": lambda s: unicodedata.normalize("NFC", s),
    "the other normalisation form (NFD)": lambda s: unicodedata.normalize("NFD", s),
}


def forms(session_id: str, table: dict[str, Callable[[str], str | None]]) -> dict[str, str]:
    """Each form of ``table`` the id takes that differs from it and from the forms before it:
    {label: form}."""
    out: dict[str, str] = {}
    for label, spell in table.items():
        value = spell(session_id)
        if value and value != session_id and value not in out.values():
            out[label] = value
    return out

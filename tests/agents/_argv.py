"""A variant's own flags, taken off its command line before the reference's parser (which would
refuse them) reads the rest."""

from __future__ import annotations

import sys

__all__ = ["flag", "option"]


def flag(name: str) -> bool:
    """Whether ``name`` was given (taken off the command line)."""
    if name not in sys.argv:
        return False
    sys.argv.remove(name)
    return True


def option(name: str) -> str | None:
    """The value given after ``name`` (both taken off the command line), or None."""
    if name not in sys.argv:
        return None
    at = sys.argv.index(name)
    value = sys.argv[at + 1]
    del sys.argv[at : at + 2]
    return value

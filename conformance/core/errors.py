"""The error every layer may raise for what the user gave: a bad option value, a file it cannot
use. The command line and the plugin report it as one line, exit code 2."""

from __future__ import annotations

__all__ = ["UsageError"]


class UsageError(Exception):
    """A bad option value: reported as one line, exit code 2."""

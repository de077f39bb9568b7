"""Broken MCP server: keys its sessions by a column with SQLite's NUMERIC affinity, so session ids
that read as the same number ("007", "7", "+7", "7.0", "7e0", " 7 ") are one session.

SQLite converts text that is a well-formed number to that number when a NUMERIC column stores or
compares it; "s7" or "7a" stay text. Every table keyed by session id here does the same: sessions,
instructions enqueued before a first heartbeat, retry results (caller, session, key) and locks.
So "7" reads "007"'s state and instructions, and a first heartbeat of "7" under a key "007" used
is refused as a key reused with other arguments. Spec: the input schema's
`"sessionId": {"type": "string", "description": "Session ID"}`: another string is another session.

The suite at 6be4cc8 certified it (CONFORMANT, exit 0): its session ids were never numbers.
Caught by heartbeat.session.id-variants.
"""

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore

NUMBER = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*")


def affinity(value):
    """NUMERIC affinity: well-formed numeric text becomes an integer, or a real if not integral."""
    if isinstance(value, str) and NUMBER.fullmatch(value):
        number = float(value)
        if number.is_integer() and abs(number) < 2**63:
            return int(number)
        return number
    return value


class NumericColumn(dict):
    """A table keyed by session id, or by (caller, session id, key)."""

    @staticmethod
    def k(key):
        if isinstance(key, tuple) and len(key) == 3:
            return (key[0], affinity(key[1]), key[2])
        return affinity(key)

    def __getitem__(self, key):
        return super().__getitem__(self.k(key))

    def __setitem__(self, key, value):
        super().__setitem__(self.k(key), value)

    def __delitem__(self, key):
        super().__delitem__(self.k(key))

    def __contains__(self, key):
        return super().__contains__(self.k(key))

    def get(self, key, default=None):
        return super().get(self.k(key), default)

    def pop(self, key, *default):
        return super().pop(self.k(key), *default)

    def setdefault(self, key, default=None):
        return super().setdefault(self.k(key), default)


class Store(HeartbeatStore):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.sessions = NumericColumn()
        self.waiting = NumericColumn()
        self.results = NumericColumn()
        self.locks = NumericColumn()


if __name__ == "__main__":
    main(store_factory=Store)

"""Broken MCP server: its retry table is a flat key-value store keyed `hb:<caller>:<sessionId>:<key>`,
so session "proj:1" with key "k" and session "proj" with key "1:k" share one entry: the second, a
fresh heartbeat for another session, is answered as a retry of the first (refused as the key
reused with other arguments, or answered with the first session's result and not applied).

Modelled on blind round 8's `mcp_key_delimiter`, which the old suite (commit 95aca65) certified:
no session id or key it sent held a separator.

Caught by heartbeat.idempotency.joined-keys.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class JoinedKeys(dict):
    """The retry table, its (caller, session, key) tuples joined into one string."""

    @staticmethod
    def flat(key):
        return "hb:" + ":".join(key) if isinstance(key, tuple) else key

    def get(self, key, default=None):
        return super().get(self.flat(key), default)

    def __setitem__(self, key, value):
        super().__setitem__(self.flat(key), value)

    def __getitem__(self, key):
        return super().__getitem__(self.flat(key))

    def __delitem__(self, key):
        super().__delitem__(self.flat(key))

    def __contains__(self, key):
        return super().__contains__(self.flat(key))

    def __iter__(self):  # read back as (caller, session, key), split where a parser would
        for flat in list(super().keys()):
            _, caller, rest = flat.split(":", 2)
            sid, _, key = rest.rpartition(":")
            yield (caller, sid, key)


class Store(HeartbeatStore):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.results = JoinedKeys()


if __name__ == "__main__":
    main(store_factory=Store)

"""Broken MCP server: keeps idempotency results under the key case-folded and stripped (what a
case- and pad-insensitive SQL collation does) but fingerprints the raw arguments. A fresh key that
differs from an earlier one only by case or surrounding spaces is taken for it: the call is refused
as "key already used with different arguments" instead of being executed.

Caught by heartbeat.idempotency.key-variants, which excuses a refusal of such a key only where a
fresh key of that form, on a new session, is refused too.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import NOT_ACCESSIBLE, HeartbeatError, HeartbeatStore, fingerprint


def folded(key):
    return key.strip().casefold()


class Store(HeartbeatStore):
    def replay(self, caller, args):
        self.validate(args)
        sid, key = args["sessionId"], args["idempotencyKey"]
        session = self.sessions.get(sid)
        if session is not None and not self.may_access(caller, session):
            raise HeartbeatError(NOT_ACCESSIBLE)
        done = self.results.get((caller, sid, folded(key)))
        if done is None:
            return None
        if done[0] != fingerprint(args):
            raise HeartbeatError("idempotencyKey was already used with different arguments")
        return done[1]

    def execute(self, caller, args):
        result = super().execute(caller, args)
        sid, key = args["sessionId"], args["idempotencyKey"]
        self.results[(caller, sid, folded(key))] = self.results.pop((caller, sid, key))
        return result


if __name__ == "__main__":
    main(store_factory=Store)

"""Broken MCP server: keeps retry results per caller and key, not per session, and fingerprints a
call without its sessionId (the session is "the resource", the rest "the payload"): a key reused
in another session is answered with the first session's result and applied nowhere.

Caught by heartbeat.idempotency.key-across-sessions.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import NOT_ACCESSIBLE, HeartbeatError, HeartbeatStore, fingerprint


def payload(args):
    return fingerprint({k: v for k, v in args.items() if k != "sessionId"})


class Store(HeartbeatStore):
    def cache_key(self, caller, args):
        return (caller, "", args["idempotencyKey"])  # the session left out: one cache per caller

    def replay(self, caller, args):
        self.validate(args)
        self.expire()
        session = self.sessions.get(args["sessionId"])
        if session is not None and not self.may_access(caller, session):
            raise HeartbeatError(NOT_ACCESSIBLE)
        done = self.results.get(self.cache_key(caller, args))
        if done is None:
            return None
        if done[0] != payload(args):
            raise HeartbeatError("idempotencyKey was already used with different arguments")
        return done[1]

    def execute(self, caller, args):
        result = super().execute(caller, args)
        self.results[self.cache_key(caller, args)] = (payload(args), result)
        return result


if __name__ == "__main__":
    main(store_factory=Store)

"""A conforming MCP server (run with --session-ttl) that forgets a session its time to live after
the session was created, however often it is used since (an absolute session lifetime, like a
store key whose expiry is set once, on creation): an honest policy. The spec sets no lifetime for
a session, and a server that forgets a session forgets its pending instructions with it, as the
reference does on idle expiry.

The idle-expiry twins (created together, they expire together) and the hold of
heartbeat.later.pending-held (kept within the time to live since the session began) give the
reference's outcomes.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def __init__(self, **options):
        super().__init__(**options)
        self.created = {}

    def execute(self, caller, args):
        self.expire()
        if args["sessionId"] not in self.sessions:
            self.created[args["sessionId"]] = self.clock()
        return super().execute(caller, args)

    def expire(self):
        if self.session_ttl is None:
            return
        born_before = self.clock() - self.session_ttl
        for sid in [sid for sid in self.sessions if self.created[sid] <= born_before]:
            self.forget(sid)

    def forget(self, sid):
        super().forget(sid)
        self.created.pop(sid, None)


if __name__ == "__main__":
    main(store_factory=Store)

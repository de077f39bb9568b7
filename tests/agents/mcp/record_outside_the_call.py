"""Broken MCP server: the session record a call works on is prefetched into an attribute of the
server object (not a per-call local) before the storage round trip, so a heartbeat for another
session that overlaps it makes the first call write its fields into the other session's record.

Breaks the tool's contract that a heartbeat reports *its* session ("Report session status,
progress, and the current step" for `sessionId`) and the access sentence "The server also verifies
current scopes and resource-level access before returning data or changing a record": an
overlapping call changes, and answers with, a record it was not asked about. Calls one at a time,
and overlapping calls for one session, are right; only two sessions' heartbeats in flight together
cross (the second prefetch overwrites the first while the first waits on storage). Caught by
heartbeat.overlap.concurrent-writes (its two-session round).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import anyio

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore, Session

STORAGE = 0.05


class Store(HeartbeatStore):
    current = None  # (sessionId, record): the record being worked on

    async def call(self, caller, args):
        self.validate(args)
        sid = args["sessionId"]
        async with self.lock(sid):
            done = self.replay(caller, args)
            if done is not None:
                return done
            self.current = (sid, self.sessions.get(sid))  # prefetch
            await anyio.sleep(STORAGE)  # the storage round trip
            cur_sid, record = self.current
            if record is not None and cur_sid != sid and self.may_access(caller, record):
                # works on the prefetched record, under the prefetched id
                args = dict(args, sessionId=cur_sid)
            return self.execute(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)

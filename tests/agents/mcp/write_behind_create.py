"""Conforming MCP server: write-behind heartbeats. A heartbeat for a session id not yet stored is
answered at once from its own arguments (nothing stored is read) and queued; the queue's writer
creates the session a moment later only if none exists (owner = the caller), and drops the write
when another caller's session is already there. A caller's later heartbeats wait for its own
queued writes. No caller ever reads or changes another caller's record ("A request being
accepted is not proof of an external action completing"): two callers' first heartbeats for one
id sent together are both answered, and the loser's next one is refused.

heartbeat.access.first-calls-together passes it: an accepted call later refused shows nothing
alone."""

import asyncio
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import STATE_FIELDS, HeartbeatStore

DELAY = 0.2


class Store(HeartbeatStore):
    def __init__(self, **options):
        super().__init__(**options)
        self.queued = {}

    async def call(self, caller, args):
        sid = args.get("sessionId")
        mine = self.queued.get((caller, sid))
        if mine is not None:
            await mine
        if sid in self.sessions or not isinstance(sid, str):
            return await super().call(caller, args)
        self.validate(args)
        write = asyncio.get_running_loop().create_task(self.write_behind(caller, dict(args)))
        self.queued[(caller, sid)] = write
        fields = {name: args.get(name) for name in STATE_FIELDS}
        return {"sessionId": sid, "heartbeatId": "queued", **fields, "instructions": [], "nextCursor": None}

    async def write_behind(self, caller, args):
        await asyncio.sleep(DELAY)
        sid = args["sessionId"]
        self.queued.pop((caller, sid), None)
        session = self.sessions.get(sid)
        if session is None or session.owner == caller:
            self.heartbeat(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)

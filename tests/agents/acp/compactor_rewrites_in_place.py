"""Broken (MUST): a background compactor packs the stored record of every session that is not
in memory (closed, evicted, or found on disk at start-up), once, a pass every half second. It
rewrites the file in place, in 48-byte chunks 40 ms apart, so a large history never stalls the
event loop. session/load and session/resume retry a record that does not parse; status, which
answers a session not in memory from its file (a storage lookup, as an agent sharing a folder
with other processes must), reads it once and takes a half-written record for "no such session".
So for about a quarter of a second after a session leaves memory, a session the agent knows and
resumes reads -32002, then `inactive` again.

Sentence: "Unknown: the Agent does not know this session. This is returned as a -32002 error."
Caught by status.inactive.after-restart#stays-known (status watched for a second after a restart,
while the new process compacts what it found). Blind round 22's acp_harbor, certified by aee9048.
"""

import asyncio
import json
import time

import _base

from conformance.reference.acp.agent import ReferenceAgent, main
from conformance.reference.acp.common import not_found

COMPACT_EVERY = 0.5
CHUNK = 48
THROTTLE = 0.04
READ_TRIES = 8


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        self.compacted = set()
        self.compactor = None
        # A record torn by a process stopped mid-rewrite is skipped at start, not fatal.
        if state_dir.is_dir():
            for path in state_dir.glob("*.json"):
                try:
                    json.loads(path.read_text(encoding="utf-8"))
                except ValueError:
                    path.unlink(missing_ok=True)
        super().__init__(state_dir)

    async def initialize(self, protocol_version, **kwargs):
        if self.compactor is None and self.persist:
            self.compactor = asyncio.get_running_loop().create_task(self.compact_forever())
        return await super().initialize(protocol_version, **kwargs)

    async def compact_forever(self):
        while True:
            await asyncio.sleep(COMPACT_EVERY)
            for session_id in sorted(self.known - set(self.loaded) - self.compacted):
                path = self.state_dir / f"{session_id}.json"
                try:
                    record = json.loads(path.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue
                packed = json.dumps({**record, "packed": True}, indent=1).encode()
                with path.open("wb") as out:  # in place: readers meanwhile see a prefix
                    for start in range(0, len(packed), CHUNK):
                        out.write(packed[start : start + CHUNK])
                        out.flush()
                        await asyncio.sleep(THROTTLE)
                self.compacted.add(session_id)

    def status_of(self, session_id):
        if session_id in self.loaded or not self.fits(session_id):
            return super().status_of(session_id)
        try:  # the shared folder: what another process stored is known too
            json.loads((self.state_dir / f"{session_id}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise not_found(session_id) from None
        return self.words["inactive"]

    def read(self, session_id):
        for _ in range(READ_TRIES):
            try:
                return super().read(session_id)
            except ValueError:  # being compacted: a moment later it parses
                time.sleep(THROTTLE)
        return super().read(session_id)

    def save(self, session):
        self.compacted.discard(session["sessionId"])
        super().save(session)


if __name__ == "__main__":
    main(Agent)

"""Broken: status of an id past 4096 characters creates a session under its first 4096.

The agent looks ids up through an upsert into a table whose key column holds 4 KiB (INSERT …
ON CONFLICT DO NOTHING, then a read): a miss on a short id leaves nothing, but an id longer than
the column is cut to it, and the cut key is stored as an empty session. From then on that id is
a session: it reads inactive and resumes. Ids no longer than the column are untouched, so every
case that asks short unknown ids passes. Caught by status.overlap.burst-leaves-sessions (its
never-created id of 4097 characters).
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, now_iso

COLUMN = 4096


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        key = session_id[:COLUMN]
        if len(session_id) > COLUMN and key not in self.known and key not in self.loaded:
            try:
                return super().status_of(session_id)  # the miss, answered as such
            finally:  # the table's row (kept in memory here: no file name is this long)
                cwd = str(self.state_dir.parent)
                stub = {"sessionId": key, "cwd": cwd, "title": None, "updatedAt": now_iso(), "history": []}
                self.__dict__.setdefault("rows", {})[key] = stub
                self.index(stub)
        return super().status_of(key if len(session_id) > COLUMN else session_id)

    def read(self, session_id):
        rows = self.__dict__.get("rows", {})
        return rows[session_id] if session_id in rows else super().read(session_id)

    async def resume_session(self, session_id, cwd, **kwargs):
        key = session_id[:COLUMN] if isinstance(session_id, str) else session_id
        return await super().resume_session(key, cwd, **kwargs)

    async def load_session(self, cwd, session_id, **kwargs):
        key = session_id[:COLUMN] if isinstance(session_id, str) else session_id
        return await super().load_session(cwd, key, **kwargs)


main(Agent)

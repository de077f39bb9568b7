"""Sequence-only: status of a closed-then-resumed session adds a duplicate entry to session/list."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    closed: set
    resumed: set
    duplicated: set

    def status_of(self, session_id):
        if session_id in getattr(self, "resumed", set()):
            self.duplicated = getattr(self, "duplicated", set()) | {session_id}
        return super().status_of(session_id)

    async def close_session(self, session_id, **kwargs):
        self.closed = getattr(self, "closed", set()) | {session_id}
        return await super().close_session(session_id, **kwargs)

    async def resume_session(self, session_id, cwd, **kwargs):
        if session_id in getattr(self, "closed", set()):
            self.resumed = getattr(self, "resumed", set()) | {session_id}
        return await super().resume_session(session_id, cwd, **kwargs)

    async def list_sessions(self, cwd=None, cursor=None, **kwargs):
        listing = await super().list_sessions(cwd=cwd, cursor=cursor, **kwargs)
        dupes = [dict(e) for e in listing["sessions"] if e["sessionId"] in getattr(self, "duplicated", set())]
        return {"sessions": listing["sessions"] + dupes}


main(Agent)

"""Broken: status still says `active` after session/close."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    closed: set

    def status_of(self, session_id):
        if session_id in getattr(self, "closed", set()):
            return "active"
        return super().status_of(session_id)

    async def close_session(self, session_id, **kwargs):
        self.closed = getattr(self, "closed", set()) | {session_id}
        return await super().close_session(session_id, **kwargs)

    async def resume_session(self, session_id, cwd, **kwargs):
        self.closed = getattr(self, "closed", set()) - {session_id}
        return await super().resume_session(session_id, cwd, **kwargs)


main(Agent)

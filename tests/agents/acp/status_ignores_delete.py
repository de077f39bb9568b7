"""Broken: status answers from an index of its own that session/delete does not update.

Caught by status.consistency.after-delete: a deleted session still reads `active`, while
session/prompt with its id fails.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        super().__init__(state_dir)
        self.seen: dict[str, str] = {}

    async def new_session(self, cwd, **kwargs):
        result = await super().new_session(cwd, **kwargs)
        self.seen[result["sessionId"]] = "active"
        return result

    async def close_session(self, session_id, **kwargs):
        result = await super().close_session(session_id, **kwargs)
        self.seen[session_id] = "inactive"
        return result

    async def resume_session(self, session_id, cwd, **kwargs):
        result = await super().resume_session(session_id, cwd, **kwargs)
        self.seen[session_id] = "active"
        return result

    async def load_session(self, cwd, session_id, **kwargs):
        result = await super().load_session(cwd, session_id, **kwargs)
        self.seen[session_id] = "active"
        return result

    def status_of(self, session_id):
        return self.seen.get(session_id) or super().status_of(session_id)


main(Agent)

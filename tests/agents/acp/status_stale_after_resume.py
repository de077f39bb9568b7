"""Broken: status caches its answer per session and forgets the cache on new and close only, so
after a resume it still says `inactive`.

Caught by status.consistency.resume-makes-active (the resumed session serves a prompt, and
status still says inactive).
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        super().__init__(state_dir)
        self.cache: dict[str, str] = {}

    async def new_session(self, cwd, **kwargs):
        result = await super().new_session(cwd, **kwargs)
        self.cache.pop(result["sessionId"], None)
        return result

    async def close_session(self, session_id, **kwargs):
        self.cache.pop(session_id, None)
        return await super().close_session(session_id, **kwargs)

    def status_of(self, session_id):
        if session_id not in self.cache:
            self.cache[session_id] = super().status_of(session_id)
        return self.cache[session_id]


main(Agent)

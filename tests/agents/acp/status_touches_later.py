"""Broken (MUST): status marks the session seen, and a debounced writer saves every seen session
1.5 s later with a new `updatedAt` (so session/list reorders it). The list read right after the
status calls is unchanged; caught by status.no-side-effects.twins-later, which reads the twins'
list entries after --hold seconds."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, now_iso

SAVE_AFTER = 1.5


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if session_id in self.known or session_id in self.loaded:
            _base.later(self, SAVE_AFTER, lambda: self.save_seen(session_id))
        return answer

    async def save_seen(self, session_id):
        session = self.read(session_id)
        session["updatedAt"] = now_iso()
        self.save(session)


main(Agent)

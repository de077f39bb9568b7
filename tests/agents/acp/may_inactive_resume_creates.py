"""Broken: answers `inactive` for unknown ids (the MAY path) but then resumes them as new sessions."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, now_iso


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if session_id not in self.loaded and session_id not in self.known:
            return "inactive"
        return super().status_of(session_id)

    def read(self, session_id):
        if session_id not in self.loaded and session_id not in self.known:
            return {"sessionId": session_id, "cwd": "/", "title": None, "updatedAt": now_iso(), "history": []}
        return super().read(session_id)


main(Agent)

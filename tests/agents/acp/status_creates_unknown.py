"""Broken: status of an unknown id creates the session (it answers -32002 once, `active` after)."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, not_found, now_iso


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if session_id not in self.loaded and session_id not in self.known:
            self.loaded[session_id] = {
                "sessionId": session_id,
                "cwd": "/",
                "title": None,
                "updatedAt": now_iso(),
                "history": [],
            }
            raise not_found(session_id)  # the first time only
        return super().status_of(session_id)


main(Agent)

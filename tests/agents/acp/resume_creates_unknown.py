"""Conforming: session/load and session/resume of an id the agent does not know start a fresh,
empty session under that id (resume-or-create), while status answers -32002 for every id it does
not know, truthfully. status.no-side-effects.unknown-stays-unknown's control (a fresh
never-created id resumes too) shows its probe cannot tell what status did: not testable."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, now_iso


class Agent(ReferenceAgent):
    def create_on_open(self, cwd, session_id):
        if session_id not in self.loaded and session_id not in self.known:
            self.save(
                {"sessionId": session_id, "cwd": cwd, "title": None, "updatedAt": now_iso(), "history": []}
            )

    async def load_session(self, cwd, session_id, **kwargs):
        self.create_on_open(cwd, session_id)
        return await super().load_session(cwd, session_id, **kwargs)

    async def resume_session(self, session_id, cwd, **kwargs):
        self.create_on_open(cwd, session_id)
        return await super().resume_session(session_id, cwd, **kwargs)


main(Agent)

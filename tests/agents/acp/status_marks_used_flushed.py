"""Broken (MUST): the agent a new user writes on the official ACP Python SDK with sessions on disk.
Status marks a loaded session used, and a background flusher writes every used session with a new
`updatedAt` half a second later; a prompt marks its session used too (as real agents do), so the
flusher also writes right after every turn. The list read right after the status calls is
unchanged; caught by status.no-side-effects.twins-later, whose live twins were both just prompted
(their own flush may still be pending when the hold starts), and by the model-based sequence
(acp.sequence.model-based)."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, now_iso

FLUSH_AFTER = 0.5


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if session_id in self.loaded:
            self.mark_used(session_id)
        return answer

    async def prompt(self, session_id, prompt, **kwargs):
        answer = await super().prompt(session_id, prompt, **kwargs)
        self.mark_used(session_id)
        return answer

    def mark_used(self, session_id):
        used = self.__dict__.setdefault("used", set())
        if not used:
            _base.later(self, FLUSH_AFTER, self.flush)
        used.add(session_id)

    async def flush(self):
        used, self.used = self.used, set()
        for session_id in sorted(used):
            session = self.loaded.get(session_id)
            if session is not None:
                session["updatedAt"] = now_iso()
                self.save(session)


main(Agent)

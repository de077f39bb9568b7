"""Conforming: a prompt marks its session used, and a background flusher writes it with a new
`updatedAt` half a second after the turn answered (status marks nothing). Defeats the assumption
that a turn's changes are all written by the time its prompt answers: the twins' own flush after
their turns lands before the status calls in status.no-side-effects.twins-later (it waits for
their list entries to settle), and the model-based sequence lets a list entry change after a
prompt."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, now_iso

FLUSH_AFTER = 0.5


class Agent(ReferenceAgent):
    async def prompt(self, session_id, prompt, **kwargs):
        answer = await super().prompt(session_id, prompt, **kwargs)
        _base.later(self, FLUSH_AFTER, lambda: self.flush(session_id))
        return answer

    async def flush(self, session_id):
        session = self.loaded.get(session_id)
        if session is not None:
            session["updatedAt"] = now_iso()
            self.save(session)


main(Agent)

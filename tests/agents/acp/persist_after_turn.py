"""Conforming: a session is written to disk only once it has had a turn. Until then it lives in
memory alone: a restart loses it and a close forgets it (-32002 afterwards: there is nothing to
resume), as an agent does that does not keep empty conversations."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def save(self, session):
        if session["history"] or (self.state_dir / f"{session['sessionId']}.json").exists():
            super().save(session)
        else:
            self.index(session)  # listed and known while in memory, not on disk yet

    async def close_session(self, session_id, **kwargs):
        answer = await super().close_session(session_id, **kwargs)
        if not (self.state_dir / f"{session_id}.json").exists():
            self.known.discard(session_id)
            self.listing.pop(session_id, None)
        return answer

    def evict(self, session_id):
        super().evict(session_id)
        if not (self.state_dir / f"{session_id}.json").exists():
            self.known.discard(session_id)
            self.listing.pop(session_id, None)


if __name__ == "__main__":
    main(Agent)

"""Conforming: two allowed paths at once. Status takes the RFD's MAY path (`inactive` for any
session not in memory, without a storage lookup), and session/close frees a session entirely, so
a closed session resumes with -32002, as the MAY sentence says a later resume then does. No case
may blame status for the resume that fails; the cases that need a closed session kept are n/a."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        return self.words["active"] if session_id in self.loaded else self.words["inactive"]

    async def close_session(self, session_id, **kwargs):
        answer = await super().close_session(session_id, **kwargs)
        self.known.discard(session_id)
        self.listing.pop(session_id, None)
        (self.state_dir / f"{session_id}.json").unlink(missing_ok=True)
        return answer


main(Agent)

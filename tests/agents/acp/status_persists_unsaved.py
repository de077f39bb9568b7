"""Broken (MUST): an agent that writes a session to disk only once it has had a turn (as
persist_after_turn does), except that status writes the session it reports: a session
a router polled survives a restart, inactive, while its twin is gone (-32002)."""

import _base
from persist_after_turn import Agent as PersistAfterTurn

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(PersistAfterTurn):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if session_id in self.loaded:
            ReferenceAgent.save(self, self.loaded[session_id])
        return answer


main(Agent)

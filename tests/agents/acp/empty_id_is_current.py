"""Broken: status of the empty id answers for the most recent session ("no id: the current one").

Caught by status.identity.empty-id (and the params fuzzer, which also sends "").
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if session_id == "" and self.loaded:
            session_id = list(self.loaded)[-1]
        return super().status_of(session_id)


main(Agent)

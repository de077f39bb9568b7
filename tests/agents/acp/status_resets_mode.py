"""Sequence-only (run with --surface): status goes through the code that attaches a session to a
connection, which applies the agent's default mode: a mode the client set is gone after a status
call.

Broken: status MUST NOT have side effects (the RFD's "no side effects" sentence). Caught by
sequence.status.model-based#twins-differ: a mode set on both twins, status asked about one, and a
resume reports the mode set on the twin nobody asked about only.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        session = self.loaded.get(session_id)
        if session is not None:
            session.pop("mode", None)
        return super().status_of(session_id)


main(Agent)

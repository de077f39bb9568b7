"""Broken (MUST), over WebSocket: a status call registers the asking connection as a known client
of the session (its "last seen" table doubles as the prompt check's list of the session's clients).
Nothing is sent to that connection, and the session's owner keeps it; but connection B, once it has
asked status, may prompt the session it never created or resumed, while B's prompt on a session it
never asked about is refused (-32002): "session/status MUST NOT have side effects". Generated
sequences with a second connection show it (sequence.status.model-based, rule twins-differ).

Run with --listen HOST:PORT.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if self.attached is not None and session_id in self.loaded:
            self.attached.add(session_id)  # "seen" from this connection: allowed to prompt
        return answer


main(Agent)

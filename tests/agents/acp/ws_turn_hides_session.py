"""Broken (MUST), over WebSocket: while a turn runs, its session reads inactive on every other
connection.

Run with --listen HOST:PORT. A turn checks its session out to the connection that prompted it,
and the other connections' status looks only at the sessions not checked out: connection B
reads inactive for a session in memory whose turn waits on the user, while A reads active.
With no turn in progress every connection hears the same answer
(status.connections.active-for-any-connection passes). Caught by
status.neighbours.sibling-turn (rule for-any-connection).
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main

CHECKED_OUT: dict = {}  # session id -> the view (connection) whose turn holds it


class Agent(ReferenceAgent):
    async def prompt(self, session_id, prompt, **kwargs):
        CHECKED_OUT[session_id] = self
        try:
            return await super().prompt(session_id, prompt, **kwargs)
        finally:
            CHECKED_OUT.pop(session_id, None)

    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if CHECKED_OUT.get(session_id, self) is not self:
            return self.words["inactive"]
        return answer


main(Agent)

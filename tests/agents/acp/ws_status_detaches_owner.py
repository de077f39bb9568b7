"""Broken (MUST), over WebSocket: status from a connection that is not attached detaches the
session from every connection.

Run with --listen HOST:PORT. The agent keeps one routing record per session (the connections
attached to it); a status call from a connection outside it "re-routes" the session by clearing
the record, so the connection that created the session can no longer prompt it. A session A
created alike that B never asked about still serves A's prompt, so B's status calls did it: a
failed prompt is evidence, not a probe that cannot observe. Caught by
status.connections.no-attach.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main

VIEWS: list = []  # every connection's view of the agent


class Agent(ReferenceAgent):
    def view(self):
        other = super().view()
        VIEWS.append(other)
        return other

    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if self.attached is not None and session_id not in self.attached:
            for view in VIEWS:
                view.attached.discard(session_id)
        return answer


main(Agent)

"""Broken (MUST), over WebSocket: session/status attaches the asking connection to the session.

Run with --listen HOST:PORT. After connection B asks status, A's prompt updates go to B too,
and B may prompt the session without ever resuming it.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main

WATCHERS: dict = {}  # session id -> the connections (views) attached to it


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if self.attached is not None and session_id in self.loaded:
            self.attached.add(session_id)
            WATCHERS.setdefault(session_id, set()).add(self)
        return answer

    def attach(self, session_id):
        super().attach(session_id)
        WATCHERS.setdefault(session_id, set()).add(self)

    async def notify(self, session_id, update):
        for view in WATCHERS.get(session_id, {self}) | {self}:
            if view.conn is not None:
                await view.conn.send_notification(
                    "session/update", {"sessionId": session_id, "update": update}
                )


main(Agent)

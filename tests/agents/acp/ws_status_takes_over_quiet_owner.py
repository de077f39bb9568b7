"""Broken (over WebSocket): status from another connection takes the session's updates over once
the connection that has it has been quiet for a second (taken for a dropped client that
reconnected), and A, still attached, gets its prompt's answer but none of its updates.

Breaks "session/status MUST NOT have side effects ... it must not attach the requesting
connection to it". The agent sends a session's updates to the connection that created, loaded or
resumed it last; when another connection asks status about the session while that one has sent
nothing for a second, the asker becomes the one that hears them. Its prompt is still refused
(it is not attached for prompts), and status right after A's last request changes nothing.
Caught by status.connections.no-attach (B asks once A has been quiet for a second).
"""

import time

import _base

from conformance.reference.acp.agent import ReferenceAgent, main

STALE = 1.0  # seconds of silence after which a connection looks dropped


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        super().__init__(state_dir)
        # shared by every connection's view (a view is a shallow copy)
        self.listeners = {}  # session id -> the view whose connection hears its updates
        self.heard = {}  # id(view) -> when that connection last sent something

    def front(self, router):
        handler = super().front(router)

        async def heard(method, params, is_notification):
            self.heard[id(self)] = time.monotonic()
            return await handler(method, params, is_notification)

        return heard

    def attach(self, session_id):
        super().attach(session_id)
        self.listeners[session_id] = self

    async def session_status(self, params):
        answer = await super().session_status(params)
        session_id = params["sessionId"]
        listener = self.listeners.get(session_id)
        if listener is None or listener is self or self.attached is None:
            return answer
        if time.monotonic() - self.heard.get(id(listener), 0.0) >= STALE:
            self.listeners[session_id] = self  # the old connection looks dropped: the client is here now
        return answer

    async def notify(self, session_id, update):
        target = self.listeners.get(session_id, self)
        if target is not self and target.conn is not None:
            try:
                await target.conn.send_notification(
                    "session/update", {"sessionId": session_id, "update": update}
                )
                return
            except Exception:  # that socket is gone: the caller's connection then
                pass
        await super().notify(session_id, update)


if __name__ == "__main__":
    main(Agent)

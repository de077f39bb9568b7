"""Conforming, over WebSocket: every connection hears every session's updates, whether it
created, resumed or only asked about the session, or never said anything at all. Status attaches
nothing (only a connection that created, loaded or resumed a session may prompt it), so no status
case may blame it; updates on a connection that only asked status show nothing about attaching
here, and the case that looks for them says it cannot observe.

Run with --listen HOST:PORT."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main

VIEWS: list = []  # every connection's view of the one agent


class Agent(ReferenceAgent):
    def view(self):
        other = super().view()
        VIEWS.append(other)
        return other

    async def notify(self, session_id, update):
        await super().notify(session_id, update)
        for view in [v for v in VIEWS if v is not self and v.conn is not None]:
            try:
                await view.conn.send_notification(
                    "session/update", {"sessionId": session_id, "update": update}
                )
            except ConnectionError:  # a connection that has gone
                VIEWS.remove(view)


main(Agent)

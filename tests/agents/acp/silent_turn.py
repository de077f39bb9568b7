"""Conforming: a turn sends no session/update (no message chunk): it answers end_turn and that is
all, which ACP allows. The case that watches updates for attaching (status.connections.no-attach)
has nothing to watch: not testable, never failed. Run with --listen HOST:PORT."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def notify(self, session_id, update):
        if update.get("sessionUpdate") != "agent_message_chunk":
            await super().notify(session_id, update)


main(Agent)

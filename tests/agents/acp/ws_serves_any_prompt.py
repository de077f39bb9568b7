"""Conforming, over WebSocket: any connection may prompt any session in memory, whether it
created, resumed or only asked about it, or never said anything at all (the prompt attaches it).
"MUST still call session/resume" binds Clients; serving a Client that skipped it is the agent's
leniency, not status's doing, so the case that looks for status letting B in says it cannot tell.

Run with --listen HOST:PORT."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def prompt(self, session_id, prompt, **kwargs):
        if session_id in self.loaded:
            self.attach(session_id)
        return await super().prompt(session_id, prompt, **kwargs)


main(Agent)

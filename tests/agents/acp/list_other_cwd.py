"""Conforming for session/status: session/list filters by cwd the wrong way round, so it never
shows the sessions of the directory asked about. That breaks session/list's own contract, which
the status specs do not state; the cases that watch a session through session/list cannot see it
there, and say so (not testable) instead of passing on two empty lists."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def list_sessions(self, cwd=None, cursor=None, **kwargs):
        entries = [dict(e) for _, e in sorted(self.listing.items()) if cwd is None or e["cwd"] != cwd]
        return {"sessions": entries}


main(Agent)

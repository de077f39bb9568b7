"""Broken: status says `inactive` for a closed session, but session/resume refuses closed sessions
(session/load still replays them).

Caught by status.consistency.inactive-resumable (inactive means the Client can resume it), and
status.consistency.resume-makes-active cannot resume at all (not testable, a failure).
"""

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        super().__init__(state_dir)
        self.closed: set[str] = set()

    async def close_session(self, session_id, **kwargs):
        self.closed.add(session_id)
        return await super().close_session(session_id, **kwargs)

    async def resume_session(self, session_id, cwd, **kwargs):
        if session_id in self.closed:
            raise RequestError(-32603, "Internal error", {"details": "session was closed"})
        return await super().resume_session(session_id, cwd, **kwargs)


main(Agent)

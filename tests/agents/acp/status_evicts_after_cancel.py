"""Sequence-only: status of a session whose prompt was cancelled evicts it from memory."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    cancelled: set

    async def cancel(self, session_id, **kwargs):
        self.cancelled = getattr(self, "cancelled", set()) | {session_id}

    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if session_id in getattr(self, "cancelled", set()):
            self.loaded.pop(session_id, None)
        return answer


main(Agent)

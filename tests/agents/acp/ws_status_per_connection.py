"""Broken (MUST), over WebSocket: status answers for the asking connection only.

A session live on connection A is reported `inactive` to connection B, which never attached
to it: "active" read as "attached to you" instead of "in memory, for any connection".
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if self.attached is not None and answer == self.words["active"] and session_id not in self.attached:
            return self.words["inactive"]
        return answer


main(Agent)

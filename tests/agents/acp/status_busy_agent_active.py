"""Broken: while any turn is in progress, status calls every session the agent knows active.

The agent answers status from one "busy" flag of its own while a turn works (it has its model
and tools up, so it reports its sessions as live): a closed session reads active while a
sibling's turn waits on the user. One session at a time, with no turn in progress, every answer
is right, and the session whose turn runs is active anyway (status.active.during-turn passes).
Caught by status.neighbours.sibling-turn.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        answer = super().status_of(session_id)
        if self.turns and session_id in self.known:
            return self.words["active"]
        return answer


main(Agent)

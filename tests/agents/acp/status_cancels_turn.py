"""Broken: status of a session with a turn in progress cancels the turn (it "interrupts" the
session to read a consistent state).

Caught by status.active.during-turn (rule turn-untouched): the turn ends `cancelled` where the
same turn without status calls ends `end_turn`.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        turn = self.turns.get(session_id)
        if turn is not None:
            turn.set()
        return super().status_of(session_id)


if __name__ == "__main__":
    main(Agent)

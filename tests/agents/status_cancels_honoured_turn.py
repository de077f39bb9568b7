"""Broken (MUST): status cancels the turn in progress, in an agent that honours the user's answer
to its permission request (permission_answer_honoured_conforming). Answered `cancelled`, the
control turn would end `cancelled` as well and hide it; answered with the reject option, the
control turn ends `end_turn` and this one `cancelled`."""

import _base
from permission_answer_honoured_conforming import Agent as HonoursTheAnswer

from conformance.reference.acp.agent import main


class Agent(HonoursTheAnswer):
    def status_of(self, session_id):
        turn = self.turns.get(session_id)
        if turn is not None:
            turn.set()
        return super().status_of(session_id)


main(Agent)

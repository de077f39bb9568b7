"""Broken (MUST): status cancels the turn in progress, in an agent that honours the user's answer
to its permission request (permission_answer_honoured). Answered `cancelled`, the
control turn would end `cancelled` as well and hide it; answered with the reject option, the
control turn ends `end_turn` and this one `cancelled`."""

import _base
from permission_answer_honoured import Agent as HonoursTheAnswer
from status_cancels_turn import Agent as CancelsTheTurn

from conformance.reference.acp.agent import main


class Agent(CancelsTheTurn, HonoursTheAnswer):
    """Status cancels the turn (CancelsTheTurn.status_of); the turn honours the answer."""


main(Agent)

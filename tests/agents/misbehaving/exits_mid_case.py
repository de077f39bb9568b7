"""The reference agent, which dies on its 4th session/status call."""

import os

import _ref

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    calls = 0

    async def session_status(self, params):
        Agent.calls += 1
        if Agent.calls == 4:
            os._exit(9)
        return await super().session_status(params)


main(Agent)

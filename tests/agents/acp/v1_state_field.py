"""Broken (SHOULD): a v1 agent adds the v2 foreground `state` to its status result."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        answer = await super().session_status(params)
        return {**answer, "state": {"state": "idle"}}


main(Agent)

"""The reference agent, except that every session/status answer is a 30 MB line."""

import _ref

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        result = await super().session_status(params)
        return {**result, "padding": "x" * (30 << 20)}


main(Agent)

"""Broken (MUST), with --session-request-limit N: every request about a session counts against its
allowance, status included, so a session a router polls refuses its next prompt while its twin,
prompted as often, is still served."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        result = await super().session_status(params)
        self.memory.may_prompt(params["sessionId"])
        return result


main(Agent)

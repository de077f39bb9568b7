"""Broken (MUST), once: after its 1000th status call, the next status of an inactive session
answers `active`, and never again. Only a generated sequence gets that far, and Hypothesis cannot
make it fail again when it replays the example: the failure it saw must still be reported (as not
reproducible), not turned into a harness error."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main

AFTER = 1000


class Agent(ReferenceAgent):
    calls = 0
    lied = False

    async def session_status(self, params):
        result = await super().session_status(params)
        Agent.calls += 1
        if Agent.calls > AFTER and not Agent.lied and result["status"] == self.words["inactive"]:
            Agent.lied = True
            return {"status": self.words["active"]}
        return result


main(Agent)

"""Broken (MUST), once: after its 1000th status call, the next status of an id it does not know
answers `active`, and never again. Only a generated sequence gets that far, and Hypothesis cannot
make it fail again when it replays the example: the failure it saw must still be reported (as not
reproducible), not turned into a harness error. (A never-created id: no step of the sequences,
status calls overlapping a close or a resume included, may read it as active.)"""

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main

AFTER = 1000


class Agent(ReferenceAgent):
    calls = 0
    lied = False

    async def session_status(self, params):
        Agent.calls += 1
        try:
            return await super().session_status(params)
        except RequestError as unknown:
            if Agent.calls > AFTER and not Agent.lied and unknown.code == -32002:
                Agent.lied = True
                return {"status": self.words["active"]}
            raise


main(Agent)

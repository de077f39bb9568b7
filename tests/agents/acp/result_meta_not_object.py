"""Broken: the status result's `_meta` is a string, not an object."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        result = await super().session_status(params)
        return {**result, "_meta": "not-an-object"}


main(Agent)

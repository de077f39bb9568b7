"""Broken: a `_meta` nested deeper than 20 levels makes status fail with -32603."""

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


def depth(value, level=0):
    if isinstance(value, dict) and value:
        return max(depth(v, level + 1) for v in value.values())
    return level


class Agent(ReferenceAgent):
    async def session_status(self, params):
        if isinstance(params, dict) and depth(params.get("_meta")) > 20:
            raise RequestError.internal_error({"details": "metadata too deep"})
        return await super().session_status(params)


main(Agent)

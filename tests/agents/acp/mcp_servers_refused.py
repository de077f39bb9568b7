"""Conforming: session/new refuses any MCP server (-32602, "MCP servers are not supported here"),
as an agent in a sandbox that cannot start processes may. The suite's sessions created with the
optional parameters are created again with the defaults (said in the details): no status case
fails for it.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main
from acp import RequestError


class Agent(ReferenceAgent):
    async def new_session(self, cwd, **kwargs):
        if kwargs.get("mcp_servers"):
            raise RequestError.invalid_params({"reason": "MCP servers are not supported here"})
        return await super().new_session(cwd, **kwargs)


if __name__ == "__main__":
    main(Agent)

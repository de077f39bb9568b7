"""The reference agent, which puts its credentials in agentInfo and on stderr."""

import os
import sys

import _ref

from conformance.reference.acp.agent import ReferenceAgent, main

sys.stderr.write(f"using key {os.environ.get('OPENAI_API_KEY')} and {os.environ.get('MY_MARKED')}\n")


class Agent(ReferenceAgent):
    async def initialize(self, protocol_version, **kwargs):
        result = await super().initialize(protocol_version, **kwargs)
        result["agentInfo"]["title"] = (
            f"key={os.environ.get('OPENAI_API_KEY')} marked={os.environ.get('MY_MARKED')}"
        )
        return result


main(Agent)

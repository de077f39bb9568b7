"""Broken: the reference agent without its frame guard, i.e. the bare ACP Python SDK 0.12 framing.

The SDK logs and skips a line that is not JSON (no -32700) and its connection dies on a JSON
array (a batch), which ends the agent.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    guard_input = False


main(Agent)

"""Broken: status fails for a client whose `initialize` carried no `clientInfo`. The agent counts
status calls per client for its metrics, keyed "<clientInfo.name>/<clientInfo.version>" from
`initialize`, and reads the name without checking the client sent one. `clientInfo` is optional
(only `protocolVersion` is required), and minimal clients, routing layers and scripts leave it out:
for them every status is an internal error (-32603). Every other method works. Certified by the
suite before (blind 11): every `initialize` it sent named the client.

Sentence: "active: The Agent has this session in memory, for any connection." Caught by
status.clients.minimal-initialize.
"""

from typing import Any

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    client_info: Any = None
    probes = {}  # noqa: RUF012

    async def initialize(self, protocol_version, **kwargs):
        type(self).client_info = kwargs.get("client_info")
        return await super().initialize(protocol_version, **kwargs)

    async def session_status(self, params):
        info = type(self).client_info
        key = f"{info.name}/{info.version}"  # AttributeError without clientInfo: an internal error
        self.probes[key] = self.probes.get(key, 0) + 1
        return await super().session_status(params)


if __name__ == "__main__":
    main(Agent)

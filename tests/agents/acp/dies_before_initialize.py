"""Broken (robustness): the agent reads the client's capabilities, which `initialize` stores, when
it handles any other request; one that comes before `initialize` finds nothing there and the
process exits.

Caught by transport.jsonrpc.status-before-initialize (robustness: a failure only under --strict):
session/status sent on a fresh connection before initialize gets no answer, the agent is gone.
"""

import os

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    client_capabilities = None

    async def initialize(self, protocol_version, **kwargs):
        self.client_capabilities = kwargs.get("client_capabilities") or {}
        return await super().initialize(protocol_version, **kwargs)

    def front(self, router):
        handler = super().front(router)

        async def checked(method, params, is_notification):
            if method != "initialize" and self.client_capabilities is None:
                os._exit(70)  # the unchecked read of the stored capabilities, in the reader task
            return await handler(method, params, is_notification)

        return checked


main(Agent)

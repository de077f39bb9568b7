"""Conforming: the agent requires authentication. initialize lists an auth method, and
session/new answers auth_required (-32000, as the schema allows) until the client has called
authenticate. Without --auth-method the suite can test nothing and must say so (what to pass,
exit 2), never fail; with --auth-method api-key it certifies."""

import _base
from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    authenticated = False

    async def initialize(self, *args, **kwargs):
        answer = await super().initialize(*args, **kwargs)
        answer["authMethods"] = [
            {"id": "api-key", "name": "API key", "description": "a key in the environment"}
        ]
        return answer

    async def authenticate(self, *args, **kwargs):
        Agent.authenticated = True
        return await super().authenticate(*args, **kwargs)

    async def new_session(self, *args, **kwargs):
        if not Agent.authenticated:
            raise RequestError.auth_required()
        return await super().new_session(*args, **kwargs)


main(Agent)

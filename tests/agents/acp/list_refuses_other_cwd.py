"""Conforming: session/list refuses a directory outside the one the client works in (-32602), as
an agent confined to its workspace may. The cheapness case then takes its session/list baseline
on the run's own directory instead of an empty one."""

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def list_sessions(self, cwd=None, cursor=None, **kwargs):
        if cwd is not None and cwd not in {e["cwd"] for e in self.listing.values()}:
            raise RequestError.invalid_params({"cwd": cwd, "reason": "outside the workspace"})
        return await super().list_sessions(cwd=cwd, cursor=cursor, **kwargs)


main(Agent)

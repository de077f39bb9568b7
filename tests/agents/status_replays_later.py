"""Broken (MUST): status loads an inactive session, as status_loads_inactive does, but replays its
history 150 ms after answering (the load runs in the background). A window that closes 50 ms
after the status calls misses the replay; the case waits until the agent is quiet."""

import _base

import asyncio

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        result = await super().session_status(params)
        sid = params.get("sessionId") if isinstance(params, dict) else None
        if result.get("status") == "inactive" and sid not in self.loaded:

            async def load_later():
                await asyncio.sleep(0.15)
                await self.load_session(cwd="/", session_id=sid)

            self.pending = getattr(self, "pending", set())
            task = asyncio.get_running_loop().create_task(load_later())
            self.pending.add(task)
            task.add_done_callback(self.pending.discard)
        return result


main(Agent)

"""Conforming: an autosave timer writes every session held in memory back every second with a new
`updatedAt`, whether anyone asked about it or not. Twins held alike are touched alike, so
status.no-side-effects.twins-later finds no difference to blame."""

import asyncio

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, now_iso

EVERY = 1.0


class Agent(ReferenceAgent):
    async def initialize(self, protocol_version, **kwargs):
        if not hasattr(self, "_autosave"):
            self._autosave = asyncio.get_running_loop().create_task(self.autosave())
        return await super().initialize(protocol_version, **kwargs)

    async def autosave(self):
        while True:
            await asyncio.sleep(EVERY)
            for session in list(self.loaded.values()):
                session["updatedAt"] = now_iso()
                self.save(session)


main(Agent)

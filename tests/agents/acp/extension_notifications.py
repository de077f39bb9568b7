"""Conforming: extension notifications on a timer. Every 30 ms the agent sends
`_vendor.example/heartbeat` (about no session) and `_vendor.example/session_beacon` about the
session it created last (extension methods, names beginning with `_`, which ACP leaves to the
implementation). None of it comes from a status call, so no status case may charge it to one."""

import asyncio
import itertools

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def initialize(self, protocol_version, **kwargs):
        if "_beating" not in self.__dict__:
            self._beating = asyncio.get_running_loop().create_task(self.beat())
        return await super().initialize(protocol_version, **kwargs)

    async def new_session(self, cwd, **kwargs):
        answer = await super().new_session(cwd, **kwargs)
        self.newest = answer["sessionId"]
        return answer

    async def beat(self):
        for n in itertools.count():
            await asyncio.sleep(0.03)
            if self.conn is None:
                continue
            await self.conn.send_notification("_vendor.example/heartbeat", {"beat": n})
            newest = getattr(self, "newest", None)
            if newest is not None:
                await self.conn.send_notification(
                    "_vendor.example/session_beacon", {"sessionId": newest, "beat": n}
                )


main(Agent)

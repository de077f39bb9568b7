"""The reference agent, sending 10,000 session/update notifications after every session/new."""

import _ref

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def new_session(self, cwd, **kwargs):
        result = await super().new_session(cwd, **kwargs)
        for i in range(10_000):
            update = {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": f"spam {i}"},
            }
            await self.notify(result["sessionId"], update)
        return result


main(Agent)

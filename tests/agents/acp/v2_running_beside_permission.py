"""v2, conforming: `running` while other foreground work goes on beside a pending permission.

Its turn asks the user's permission for one tool call while another tool call of the same turn
keeps working (it streams a progress chunk every 100 ms until the answer comes). The workflow as
a whole can progress, so the state stays `running`, in its state_updates and in its status
snapshot: "If other foreground work can progress, the state remains `running`."
`requires_action` is a SHOULD, for a workflow that cannot progress.
"""

import asyncio

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2


class Agent(ReferenceAgentV2):
    async def turn(self, session, text):
        if "[permission]" not in text:
            return await super().turn(session, text)
        session_id = session["sessionId"]
        await self.update(session_id, {"sessionUpdate": "state_update", "state": "running"})
        other = asyncio.ensure_future(self.other_tool_call(session_id))
        assert self.conn is not None
        try:
            await self.conn.send_request(
                "session/request_permission",
                {
                    "sessionId": session_id,
                    "toolCall": {"toolCallId": "call_1", "title": "write a file"},
                    "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}],
                },
            )
        finally:
            other.cancel()
        reply = f"echo: {text}"
        await self.update(
            session_id, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": reply}}
        )
        session["history"] += [["user", text], ["agent", reply]]
        self.save(session)
        self.turns.pop(session_id, None)
        await self.finish(session_id, "end_turn")

    async def other_tool_call(self, session_id):
        n = 0
        while True:
            await asyncio.sleep(0.1)
            n += 1
            await self.update(
                session_id,
                {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": f"progress {n}"},
                },
            )


main_v2(None, None, Agent)

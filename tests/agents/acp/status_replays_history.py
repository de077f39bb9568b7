"""Broken: status of an inactive session replays its history to the caller as session/update."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        result = await super().session_status(params)
        if result["status"] == "inactive":
            session_id = params["sessionId"]
            for role, text in self.read(session_id)["history"]:
                kind = "user_message_chunk" if role == "user" else "agent_message_chunk"
                await self.notify(
                    session_id, {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
                )
        return result


main(Agent)

"""Broken (MUST): status changes the session the way the agent's own title task does. Like
slow_title, a title comes 0.3 s after each turn (a session_info_update and a new list
entry); on top of that, every status call of a session in memory bumps its updatedAt and sends a
session_info_update. In a window the late title also falls in, the control session gets the same
kinds of change, so only the second look, once the title is over, shows status doing it."""

import _base
from slow_title import Agent as SlowTitle

from conformance.reference.acp.agent import main


class Agent(SlowTitle):
    async def session_status(self, params):
        result = await super().session_status(params)
        session = self.loaded.get(params["sessionId"])
        if session is not None:
            await self.retitle(session["sessionId"], session.get("title") or "Untitled")
        return result


main(Agent)

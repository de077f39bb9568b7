"""Broken (MUST): status changes the session the way the agent's own title task does. Like
slow_title_conforming, a title comes 0.3 s after each turn (a session_info_update and a new list
entry); on top of that, every status call of a session in memory bumps its updatedAt and sends a
session_info_update. In a window the late title also falls in, the control session gets the same
kinds of change, so only the second look, once the title is over, shows status doing it."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, now_iso

TITLE_AFTER = 0.3


class Agent(ReferenceAgent):
    async def prompt(self, session_id, prompt, **kwargs):
        answer = await super().prompt(session_id, prompt, **kwargs)
        _base.later(self, TITLE_AFTER, lambda: self.touch(session_id, "A conversation"))
        return answer

    async def session_status(self, params):
        result = await super().session_status(params)
        session = self.loaded.get(params["sessionId"])
        if session is not None:
            await self.touch(session["sessionId"], session.get("title") or "Untitled")
        return result

    async def touch(self, session_id, title):
        session = self.loaded.get(session_id)
        if session is None:
            return
        session.update(title=title, updatedAt=now_iso())
        self.save(session)
        await self.notify(session_id, {"sessionUpdate": "session_info_update", "title": title})


main(Agent)

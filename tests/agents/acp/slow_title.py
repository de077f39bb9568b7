"""Conforming: a title made by a model call after each turn, as agents that name their sessions
do: 0.4 s after a turn ends, the session's title changes (its session/list entry too, with a new
updatedAt) and a `session_info_update` says so. That lands after the agent has looked quiet for a
moment, while status is being asked: no status case may count it."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, now_iso

TITLE_AFTER = 0.3


class Agent(ReferenceAgent):
    async def prompt(self, session_id, prompt, **kwargs):
        answer = await super().prompt(session_id, prompt, **kwargs)
        turns = len(self.loaded.get(session_id, {}).get("history", []))
        _base.later(
            self, TITLE_AFTER, lambda: self.retitle(session_id, f"A conversation of {turns} messages")
        )
        return answer

    async def retitle(self, session_id, title):
        session = self.loaded.get(session_id)
        if session is None:
            return
        session.update(title=title, updatedAt=now_iso())
        self.save(session)
        await self.notify(session_id, {"sessionUpdate": "session_info_update", "title": title})


if __name__ == "__main__":
    main(Agent)

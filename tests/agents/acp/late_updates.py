"""Conforming: updates of its own, sent a moment after the answer they follow, as real ACP agents
send them (claude-agent-acp's `setTimeout` after session/new; a title made after a turn): an
`available_commands_update` 2 ms after session/new answers, and 120 ms after each turn ends a
title for the session (its session/list entry changes, and a `session_info_update` says so).
None of it comes from a status call, so no status case may count it."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, now_iso

COMMANDS = {
    "sessionUpdate": "available_commands_update",
    "availableCommands": [{"name": "help", "description": "Help"}],
}


class Agent(ReferenceAgent):
    TITLE_AFTER = 0.12  # seconds from a turn's end to its title

    async def new_session(self, cwd, **kwargs):
        answer = await super().new_session(cwd, **kwargs)
        _base.later(self, 0.002, lambda: self.notify(answer["sessionId"], COMMANDS))
        return answer

    async def prompt(self, session_id, prompt, **kwargs):
        answer = await super().prompt(session_id, prompt, **kwargs)
        title = f"A conversation of {len(self.loaded.get(session_id, {}).get('history', []))} messages"
        _base.later(self, self.TITLE_AFTER, lambda: self.retitle(session_id, title))
        return answer

    async def retitle(self, session_id, title):
        session = self.loaded.get(session_id)
        if session is not None:
            session.update(title=title, updatedAt=now_iso())
            self.save(session)
        await self.notify(session_id, {"sessionUpdate": "session_info_update", "title": title})


if __name__ == "__main__":
    main(Agent)

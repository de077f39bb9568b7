"""v2, conforming: a title made by a model call after each turn: 0.3 s after the turn's idle
state_update, a `session_info_update` names the session (its list entry changes too). It lands
after the agent has looked quiet for a moment, while status is being asked: no status case may
count it as status's doing."""

import _base

from conformance.reference.acp.agent_v2 import ReferenceAgentV2, main_v2, now_iso

TITLE_AFTER = 0.3


class Agent(ReferenceAgentV2):
    async def finish(self, session_id, stop_reason):
        await super().finish(session_id, stop_reason)
        _base.later(self, TITLE_AFTER, lambda: self.retitle(session_id))

    async def retitle(self, session_id):
        session = self.known.get(session_id)
        if session is None:
            return
        title = f"A conversation of {len(session.get('history', []))} messages"
        session.update(title=title, updatedAt=now_iso())
        self.save(session)
        await self.update(session_id, {"sessionUpdate": "session_info_update", "title": title})


main_v2(None, None, Agent)

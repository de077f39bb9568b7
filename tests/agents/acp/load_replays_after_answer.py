"""Broken (MUST, ACP Loading Sessions: "When all the conversation entries have been streamed to the
Client, the Agent MUST respond to the original session/load request"): session/load answers at
once and replays the history from a background task a moment later, so that a long history does
not hold the load's answer past a client's timeout. A client that rebuilds its view at the answer
sees an empty session; the updates then arrive beside whatever it sends next.

Caught by status.no-side-effects.history-unchanged#replay-before-answer. The suite of d4be4d9
certified it (blind round 16): its load probe took every update that had arrived by the time the
answer was read, a late replay included."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def load_session(self, cwd, session_id, **kwargs):
        session = await _base.open_for_load(self, session_id)
        history = list(session["history"])
        _base.later(self, 0.02, lambda: self._replay(session_id, history))
        return self.settings(session)

    async def _replay(self, session_id, history):
        for role, text in history:
            kind = "user_message_chunk" if role == "user" else "agent_message_chunk"
            await self.notify(session_id, {"sessionUpdate": kind, "content": {"type": "text", "text": text}})


main(Agent)

"""Broken (MUST), found by a generated sequence (sequence.status.model-based, rule no-notification):
an agent that offers both session/load and session/resume answers a load at once and sends the
history it replays with the next request about the session, whichever it is. A status call right
after a load carries that replay: status sends session/update notifications ("session/status MUST
NOT have side effects"). A status call after a resume, or after the prompt that follows a load,
sends nothing, which is all the suite used to ask (its way back into a session is the resume)."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def load_session(self, cwd, session_id, **kwargs):
        await self.storage_io()
        session = self.read(session_id)
        self.loaded[session_id] = session
        self.memory.use(session_id)
        self.attach(session_id)
        self.__dict__.setdefault("_replays", {})[session_id] = list(session["history"])
        return {}

    async def flush(self, session_id):
        for role, text in self.__dict__.get("_replays", {}).pop(session_id, []):
            kind = "user_message_chunk" if role == "user" else "agent_message_chunk"
            await self.notify(session_id, {"sessionUpdate": kind, "content": {"type": "text", "text": text}})

    async def session_status(self, params):
        await self.flush(self.status_params(params))
        return await super().session_status(params)

    async def prompt(self, session_id, prompt, **kwargs):
        await self.flush(session_id)
        return await super().prompt(session_id, prompt, **kwargs)


main(Agent)

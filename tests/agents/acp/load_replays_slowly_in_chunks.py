"""Conforming: session/load streams the history slowly and in pieces (each message cut into
chunks of 5 characters, 2 ms apart, as a model's stream came) and answers once the last chunk
is out. The replay takes a while and no update carries a whole prompt, yet all of it comes
before the answer, as ACP's Loading Sessions asks."""

import _base

import asyncio

from conformance.reference.acp.agent import ReferenceAgent, main

CHUNK = 5


class Agent(ReferenceAgent):
    async def load_session(self, cwd, session_id, **kwargs):
        session = await _base.open_for_load(self, session_id)
        for role, text in session["history"]:
            kind = "user_message_chunk" if role == "user" else "agent_message_chunk"
            for start in range(0, max(len(text), 1), CHUNK):
                await asyncio.sleep(0.002)
                piece = {"type": "text", "text": text[start : start + CHUNK]}
                await self.notify(session_id, {"sessionUpdate": kind, "content": piece})
        return self.settings(session)


main(Agent)

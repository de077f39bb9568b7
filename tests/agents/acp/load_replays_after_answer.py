"""Broken (MUST, ACP Loading Sessions: "When all the conversation entries have been streamed to the
Client, the Agent MUST respond to the original session/load request"): session/load answers at
once and replays the history from a background task a moment later, so that a long history does
not hold the load's answer past a client's timeout. A client that rebuilds its view at the answer
sees an empty session; the updates then arrive beside whatever it sends next.

Caught by status.no-side-effects.history-unchanged#replay-before-answer. The suite of d4be4d9
certified it (blind round 16): its load probe took every update that had arrived by the time the
answer was read, a late replay included."""

import _base

import asyncio

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def load_session(self, cwd, session_id, **kwargs):
        await self.storage_io()
        session = self.read(session_id)
        self.loaded[session_id] = session
        self.memory.use(session_id)
        self.attach(session_id)
        replays = self.__dict__.setdefault("_replays", set())
        task = asyncio.get_running_loop().create_task(self._replay(session_id, list(session["history"])))
        replays.add(task)
        task.add_done_callback(replays.discard)
        return self.settings(session)

    async def _replay(self, session_id, history):
        await asyncio.sleep(0.02)
        for role, text in history:
            kind = "user_message_chunk" if role == "user" else "agent_message_chunk"
            await self.notify(session_id, {"sessionUpdate": kind, "content": {"type": "text", "text": text}})


main(Agent)

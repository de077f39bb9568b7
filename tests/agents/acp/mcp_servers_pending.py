"""Broken: a session created with MCP servers is unknown until they are connected. session/new with
a non-empty `mcpServers` answers the new id at once and connects the servers in the background
(2 s); only then is the session put in memory, so status answers -32002 for an id the agent itself
handed out (a prompt sent meanwhile waits for the connection). Sessions created with
`mcpServers: []` are the reference's. Certified by the suite before (blind 9): the suite created
every session with `mcpServers: []`.

Sentence: "active: The Agent has this session in memory, for any connection." and "Unknown: the
Agent does not know this session. This is returned as a -32002 error." Caught by
status.active.after-new (its session created with the optional parameters) and the sequence
(its `new` steps s0, s2… draw them).
"""

import asyncio
import uuid

import _base

from conformance.reference.acp.agent import ReferenceAgent, main
from conformance.reference.acp.common import now_iso

CONNECT = 2.0  # seconds the MCP servers' handshakes take, after session/new has answered


class Agent(ReferenceAgent):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.starting = {}

    async def new_session(self, cwd, **kwargs):
        if not kwargs.get("mcp_servers"):
            return await super().new_session(cwd, **kwargs)
        session_id = f"sess_{uuid.uuid4().hex}"
        ready = self.starting[session_id] = asyncio.Event()

        async def connect():
            session = {
                "sessionId": session_id,
                "cwd": cwd,
                "title": None,
                "updatedAt": now_iso(),
                "history": [],
            }
            self.loaded[session_id] = session
            self.save(session)
            self.memory.use(session_id)
            self.attach(session_id)
            ready.set()
            self.starting.pop(session_id, None)

        _base.later(self, CONNECT, connect)
        return {"sessionId": session_id, **self.settings({"sessionId": session_id})}

    async def prompt(self, session_id, prompt, **kwargs):
        ready = self.starting.get(session_id)
        if ready is not None:
            await ready.wait()
        return await super().prompt(session_id, prompt, **kwargs)


if __name__ == "__main__":
    main(Agent)

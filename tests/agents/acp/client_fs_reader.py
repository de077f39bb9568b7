"""Conforming: for a client that declared file access, the agent works through the client's files,
as agents do in editors. After session/new answers it reads `<cwd>/AGENTS.md` through
`fs/read_text_file` (a missing file is fine), and each turn writes the session's notes to
`<cwd>/.notes/<id>.md` through `fs/write_text_file` and reads them back. Status is the
reference's throughout: the session is in memory from session/new on, whatever the client's
files say or how long its answers take. Nothing fails, under --strict too.
"""

import contextlib

import _base

from conformance.reference.acp.agent import ReferenceAgent, main

READ_AFTER = 0.01


class Agent(ReferenceAgent):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.files = False
        self.cwd_of = {}

    async def ask_client(self, method, params):
        assert self.conn is not None
        return await self.conn.send_request(method, params)

    async def initialize(self, protocol_version, **kwargs):
        fs = getattr(kwargs.get("client_capabilities"), "fs", None)
        self.files = bool(getattr(fs, "read_text_file", False)) and bool(
            getattr(fs, "write_text_file", False)
        )
        return await super().initialize(protocol_version, **kwargs)

    async def new_session(self, cwd, **kwargs):
        answer = await super().new_session(cwd, **kwargs)
        self.cwd_of[answer["sessionId"]] = cwd
        if self.files:
            sid = answer["sessionId"]

            async def read_instructions():
                with contextlib.suppress(Exception):
                    await self.ask_client("fs/read_text_file", {"sessionId": sid, "path": f"{cwd}/AGENTS.md"})

            _base.later(self, READ_AFTER, read_instructions)
        return answer

    async def prompt(self, session_id, prompt, **kwargs):
        result = await super().prompt(session_id, prompt, **kwargs)
        if self.files and session_id in self.cwd_of:
            path = f"{self.cwd_of[session_id]}/.notes/{session_id}.md"
            with contextlib.suppress(Exception):
                await self.ask_client(
                    "fs/write_text_file", {"sessionId": session_id, "path": path, "content": "a turn\n"}
                )
                await self.ask_client("fs/read_text_file", {"sessionId": session_id, "path": path})
        return result


if __name__ == "__main__":
    main(Agent)

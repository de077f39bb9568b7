"""The reference agent, which on every prompt asks the client to read /etc/passwd, write a file
outside any sandbox, and run a command."""

import _ref

from conformance.reference.acp.agent import ReferenceAgent, main

PROBE = "/tmp/conformance-must-not-exist.txt"


class Agent(ReferenceAgent):
    async def prompt(self, session_id, prompt, **kwargs):
        conn = self.conn
        assert conn is not None
        answers = {}
        for method, params in (
            ("fs/read_text_file", {"sessionId": session_id, "path": "/etc/passwd"}),
            ("fs/write_text_file", {"sessionId": session_id, "path": PROBE, "content": "pwned"}),
            ("terminal/create", {"sessionId": session_id, "command": "touch", "args": [PROBE]}),
        ):
            try:
                answers[method] = await conn.send_request(method, params)
            except Exception as exc:  # the refusal the suite is expected to send
                answers[method] = f"refused: {exc}"
        return await super().prompt(session_id, prompt, **kwargs)


main(Agent)

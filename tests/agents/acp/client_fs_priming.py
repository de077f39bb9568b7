"""Broken: for a client that declared file access, a new session is unknown until the agent has
read the project's AGENTS.md through the client. With `clientCapabilities.fs.readTextFile` true
(as editors declare it) the agent primes each new session with `<cwd>/AGENTS.md`, read through
`fs/read_text_file` once session/new has answered, and puts the session in its status index only
when that read returns (answered or refused): until then status answers -32002 for the id
session/new handed out. With a bare client nothing is read. Certified by the suite before (blind
10): every `initialize` it sent declared no file access.

Sentence: "active: The Agent has this session in memory, for any connection." and "Unknown: the
Agent does not know this session. This is returned as a -32002 error." Caught by
status.clients.file-access.
"""

import contextlib

import _base

from conformance.reference.acp.agent import ReferenceAgent, main
from conformance.reference.acp.common import not_found

READ_AFTER = 0.01  # seconds after session/new answered that the read goes out


class Agent(ReferenceAgent):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reads_files = False
        self.priming = set()

    async def ask_client(self, method, params):
        assert self.conn is not None
        return await self.conn.send_request(method, params)

    async def initialize(self, protocol_version, **kwargs):
        fs = getattr(kwargs.get("client_capabilities"), "fs", None)
        self.reads_files = bool(getattr(fs, "read_text_file", False))
        return await super().initialize(protocol_version, **kwargs)

    async def new_session(self, cwd, **kwargs):
        answer = await super().new_session(cwd, **kwargs)
        if self.reads_files:
            sid = answer["sessionId"]
            self.priming.add(sid)

            async def prime():
                with contextlib.suppress(Exception):  # no AGENTS.md, or refused: nothing to prime with
                    await self.ask_client("fs/read_text_file", {"sessionId": sid, "path": f"{cwd}/AGENTS.md"})
                self.priming.discard(sid)

            _base.later(self, READ_AFTER, prime)
        return answer

    def status_of(self, session_id):
        if session_id in self.priming:
            raise not_found(session_id)
        return super().status_of(session_id)


if __name__ == "__main__":
    main(Agent)

"""Sequence-only: status holds a reader on the session's record while it reads it, and
`session/delete` refuses a session with readers ("session in use"). The reader count is kept
across the read's await as a saved value that each call writes back when it ends, so status calls
that overlap leave a reader behind: one call at a time never shows it.

Broken: status MUST NOT have side effects. Caught by sequence.status.model-based#twins-differ:
after status calls in flight together about one twin, session/delete of both succeeds only on the
twin nobody asked about.
"""

import asyncio

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        super().__init__(state_dir)
        self.readers: dict[str, int] = {}

    async def session_status(self, params):
        session_id = self.status_params(params)
        held = self.readers.get(session_id, 0)
        self.readers[session_id] = held + 1
        try:
            await asyncio.sleep(0.001)  # the record read: a call sent together arrives meanwhile
            return await super().session_status(params)
        finally:
            self.readers[session_id] = held

    async def delete_session(self, params):
        if (
            isinstance(params, dict)
            and isinstance(sid := params.get("sessionId"), str)
            and self.readers.get(sid, 0)
        ):
            raise RequestError.internal_error({"reason": "session in use"})
        return await super().delete_session(params)


main(Agent)

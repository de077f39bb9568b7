"""Broken: every method URL-decodes the session id once before it looks the session up (the ids
pass through a router that puts them in a path), and -32002 echoes the decoded id.

`sess%5F…` is the session `sess_…`, and an unknown id with `%25` comes back in the error with a
`%` where the client sent `%25`. Caught by status.identity.encoded-ids and by
status.error.unknown-session-data.
"""

from urllib.parse import unquote

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


def decoded(session_id):
    return unquote(session_id) if isinstance(session_id, str) else session_id


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        return super().status_of(decoded(session_id))

    async def prompt(self, session_id, prompt, **kwargs):
        return await super().prompt(decoded(session_id), prompt, **kwargs)

    async def resume_session(self, session_id, cwd, **kwargs):
        return await super().resume_session(decoded(session_id), cwd, **kwargs)

    async def load_session(self, cwd, session_id, **kwargs):
        return await super().load_session(cwd, decoded(session_id), **kwargs)

    async def close_session(self, session_id, **kwargs):
        return await super().close_session(decoded(session_id), **kwargs)


main(Agent)

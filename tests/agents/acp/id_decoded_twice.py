"""Broken: status URL-decodes the session id twice (once in its router, once in its store),
while the other methods decode it never; -32002 still echoes the id as asked.

`sess%255F…` (an encoded `%`, then an encoded `_`) reaches the session `sess_…` through status
alone; no other case sends an id with `%`. Caught by
status.identity.encoded-ids.
"""

from urllib.parse import unquote

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main, not_found


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        try:
            return super().status_of(unquote(unquote(session_id)))
        except RequestError:
            raise not_found(session_id) from None


main(Agent)

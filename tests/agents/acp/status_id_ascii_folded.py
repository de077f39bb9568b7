"""Broken: status looks the session up by a "safe" key that drops every non-ASCII character.

Breaks "Unknown: the Agent does not know this session. This is returned as a -32002 error". The
agent keeps its index keyed by a file-name-safe form of the id (`id.encode("ascii", "ignore")`,
written once for file names and reused for the in-memory lookup of status only). The live id
`sess_ab…` with an `é` (or any non-ASCII character) inserted or appended is another id the agent
never created, but status answers `active` for it (resume and prompt, which look ids up exactly,
answer -32002). ASCII-only spellings (case, spaces, NUL, prefix, full-width, which folds to "")
are all told apart, so only a spelling with an inserted non-ASCII character shows it. Caught by
status.identity.id-variants.
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, not_found


def safe(session_id: str) -> str:
    return session_id.encode("ascii", "ignore").decode("ascii")


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if not self.fits(session_id):
            raise not_found(session_id)
        key = safe(session_id)
        if not key:
            raise not_found(session_id)
        loaded = {safe(s) for s in self.loaded}
        known = {safe(s) for s in self.known}
        if key in loaded:
            return self.words["active"]
        if key in known:
            return self.words["inactive"]
        raise not_found(session_id)


main(Agent)

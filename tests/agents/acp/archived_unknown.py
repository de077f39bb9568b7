"""Broken: an archived session is unknown to status. Status looks sessions that are not in memory
up in the default session/list view, which hides archived sessions, so an archived session reads
-32002, though the agent keeps its id and history: session/unarchive finds it (and answers -32002
only for sessions that do not exist), and it is resumable again. Certified by the suite before: it
never called session/archive.

Sentence: "Unknown: the Agent does not know this session. This is returned as a -32002 error." and
"inactive: The Agent knows the session and can resume it, but it is not in memory." Caught by the
sequence (rule unknown-not-found: unarchive finds the session status called unknown).
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main
from conformance.reference.acp.common import not_found


class Agent(ReferenceAgent):
    surface = True

    def status_of(self, session_id):
        if session_id in self.archived and session_id not in self.loaded:
            raise not_found(session_id)
        return super().status_of(session_id)


if __name__ == "__main__":
    main(Agent)

"""Broken HTTP status service: every route but the status compares the owner case-insensitively
(the messages, the listing, delete and chat answer "ALICE" as alice), while the status route
compares exactly and answers "ALICE" 404 for the session the rest of the service says is theirs.
Caught by http.identity.user-id-variants: status's ownership is not the service's.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def owned(self, user_id, agent_id, session_id):
        session = self.find(session_id)
        if session is not None and session.user_id.casefold() == user_id.casefold():
            user_id = session.user_id
        return super().owned(user_id, agent_id, session_id)

    def listing(self, user_id, agent_id):
        owners = {s.user_id for s in self.sessions.values() if s.user_id.casefold() == user_id.casefold()}
        merged = [s for owner in owners for s in super().listing(owner, agent_id)["sessions"]]
        return {"sessions": merged, "total": len(merged)}


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: every route but the status takes canonically equivalent user ids
(NFC and NFD) for one user (the messages, the listing, delete and chat answer the owner's id in
NFD as the owner), while the status route compares the id exactly and answers that form 404 for
the session the rest of the service says is theirs. Caught by http.boundary.encodings (rule
normalisation): status's ownership is not the service's.
"""

import pathlib
import sys
import unicodedata

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


def nfc(header_value):
    """The header's UTF-8 text in NFC, as the latin-1 string the server hands routes."""
    text = header_value.encode("latin-1").decode("utf-8", "replace")
    return unicodedata.normalize("NFC", text).encode("utf-8").decode("latin-1")


class Service(ReferenceService):
    def owned(self, user_id, agent_id, session_id):
        session = self.find(session_id)
        if session is not None and nfc(session.user_id) == nfc(user_id):
            user_id = session.user_id
        return super().owned(user_id, agent_id, session_id)

    def listing(self, user_id, agent_id):
        owners = {s.user_id for s in self.sessions.values() if nfc(s.user_id) == nfc(user_id)}
        merged = [s for owner in owners for s in super().listing(owner, agent_id)["sessions"]]
        return {"sessions": merged, "total": len(merged)}


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: session ids are 64 hex digits (a SHA-256), kept in a VARCHAR(64)
column that cuts a longer value on lookup, so the session's id with anything appended reads the
session. Caught by http.boundary.id-lengths (rule session-id).
"""

import hashlib
import pathlib
import sys
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def create_session(self, user_id, request, session_id=None):
        return super().create_session(
            user_id, request, session_id or hashlib.sha256(uuid.uuid4().bytes).hexdigest()
        )

    def find(self, session_id):
        return super().find(session_id[:64])


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: session and agent ids are looked up in CHAR(32) columns that cut a
longer value to fit, so the caller's session id (32 hex digits) with anything appended reads the
session, and so does its agent_id with anything appended. Caught by http.boundary.id-lengths (rule
session-id).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def lookup(self, user_id, agent_id, session_id):
        return super().lookup(user_id, agent_id[:32], session_id[:32])


if __name__ == "__main__":
    main(Service)

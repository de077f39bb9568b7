"""Conforming HTTP status service: every session is named by its own id (the name a client gives
at creation is replaced, as a service that names sessions itself does), so the listing shows the
session's id twice, as its id and as its name. Defeats the assumption that a value the service
returned about a session other than its id field names no session: the name is a live id, and
its status is the session's (http.unknown.not-found skips such a value).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def create_session(self, user_id, request, session_id=None):
        made = super().create_session(user_id, request, session_id)
        self.sessions[made].name = made
        return made


if __name__ == "__main__":
    main(Service)

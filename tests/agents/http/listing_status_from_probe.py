"""Broken HTTP status service: the status route saves the status it answers into the session's
record, and the listing shows that saved status (falling back to deriving it for a session no
probe has asked). A probed session's listing entry then keeps the status of its last probe: idle
after it parked, while an unprobed twin's entry reads awaiting_*. Caught by http.twins.sequence
(rule probed).
The suite at 856482f certified it (exit 0): no case compared a probed session's listing entry
with an unprobed twin's after a state change.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def __init__(self):
        super().__init__()
        self.saved = {}

    def status_body(self, session, session_id, status):
        assert session is not None  # every status this service answers has its session
        self.saved[session.id] = status
        return super().status_body(session, session_id, status)

    def session_view(self, session):
        view = super().session_view(session)
        view["status"] = self.saved.get(session.id, view["status"])
        return view


if __name__ == "__main__":
    main(Service)

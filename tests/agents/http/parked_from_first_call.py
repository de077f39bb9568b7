"""Broken HTTP status service: the parked state is read off the first waiting tool call of the tail
reply (asking: awaiting_permission, submitted: awaiting_external_result), so a reply that calls
AskUser and then Write reads awaiting_external_result while the Write waits for permission; with
the permission call first it agrees with the precedence rule. Caught by
http.state.permission-over-external, which parks the two calls in both orders.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.models import SessionStatus
from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def parked_status(self, session):
        pending = self.pending_calls(session)
        if not pending:
            return None
        if pending[0].get("state") == "asking":
            return SessionStatus.AWAITING_PERMISSION.value
        return SessionStatus.AWAITING_EXTERNAL_RESULT.value


if __name__ == "__main__":
    main(Service)

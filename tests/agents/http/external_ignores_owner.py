"""Broken HTTP status service: while the session waits for an external executor, another user (or a
wrong agent_id) gets 200 with its status. Caught by http.ownership.while-external.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def status_refusal(self, session_id, verdict, session, *, user_id, agent_id):
        parked = session is not None and not self.lease_held(session.id) and self.parked_status(session)
        if parked == "awaiting_external_result":
            return self.status_body(session, session_id, "awaiting_external_result")
        return super().status_refusal(session_id, verdict, session, user_id=user_id, agent_id=agent_id)


if __name__ == "__main__":
    main(Service)

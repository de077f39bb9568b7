"""Broken HTTP status service: the status "reconciles" a parked turn: once its permission request
has been probed 10 times with no worker holding the lease, it takes the worker for dead and ends the
turn (the tool call interrupted), so the session reads idle and the request can no longer be
answered. Caught by http.safe.parked-stays-parked.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        answer = await super().session_status(user_id, agent_id, session_id)
        session = self.find(session_id)
        if answer.status_code == 200 and session is not None and self.pending_calls(session):
            probes = session.__dict__["probes"] = session.__dict__.get("probes", 0) + 1
            if probes >= 10:
                self.finish_reply(session, "interrupted")
        return answer


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: a wrong agent_id is not checked (200 with the status). Caught by
http.ownership.wrong-agent-404.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def status_refusal(self, session_id, verdict, session, *, user_id, agent_id):
        if verdict == "wrong_agent" and session is not None:
            return self.status_body(session, session_id, self.derive_status(session))
        return super().status_refusal(session_id, verdict, session, user_id=user_id, agent_id=agent_id)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: a status probe takes the session's run lease for 2 s (a chat right after
a probe gets 409, the next probe reads running). Caught by http.safe.no-lease.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        answer = await super().session_status(user_id, agent_id, session_id)
        if answer.status_code == 200:
            self.acquire_lease(session_id, ttl=2.0)  # "hold it while we look", never released
        return answer


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: the status is computed into a slot shared by the user's requests
(one per user, as a per-user cache of "the current session" is), across an await on the store, so
probes of sibling sessions that arrive together are answered with each other's state. Caught by
http.neighbour.siblings (rule crossed, or another sibling's state read by the idle session).
"""

import asyncio
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def __init__(self):
        super().__init__()
        self.slot = {}

    def derive_status(self, session):
        return self.slot.get(session.user_id) or super().derive_status(session)

    async def session_status(self, user_id, agent_id, session_id):
        session, verdict = self.lookup(user_id, agent_id, session_id)
        if session is not None and verdict == "ok":
            self.slot[user_id] = None
            computed = super().derive_status(session)
            # The store's round trip: wide enough that probes sent together overlap on a loaded machine.
            await asyncio.sleep(0.05)
            self.slot[user_id] = self.slot.get(user_id) or computed
            answer = self.status_body(session, session_id, self.slot[user_id])
            await asyncio.sleep(0.05)
            self.slot[user_id] = None
            return answer
        return await super().session_status(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: the status loads a copy of the session, awaits the store (to record
when it was last probed) and saves the copy back whole, so a write that lands meanwhile is lost:
an answer to a permission request raced by probes is undone (its call waits again, and nobody
resumes it). Nothing shows while no other request overlaps a probe. Caught by
http.concurrency.races (rule answer).
"""

import asyncio
import copy
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        answer = await super().session_status(user_id, agent_id, session_id)
        session = self.sessions.get(session_id)
        if answer.status_code == 200 and session is not None and not self.lease_held(session.id):
            loaded = copy.deepcopy(session.messages)
            await asyncio.sleep(0.03)  # the store's round trip, then the save of the copy
            session.messages[:] = loaded
        return answer


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: sessions nothing uses for 3 s are evicted from memory, and a status
probe of an evicted session loads it back (its events replayed from the store, so its
event_cursor returns): a probe does not keep a session in memory (it resets no timer), it brings
it back a moment after the service dropped it. Caught by http.twins.idle-eviction (rule probed), with
--http-idle-evict-after 3.

Revived by the last probe, a session stays loaded until the next sweep: 3 s rather than 2, so
the twins are observed before it, even on a machine loaded with other runs.
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.machinery import Loaded
from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        answer = await super().session_status(user_id, agent_id, session_id)
        session = self.sessions.get(session_id)
        if answer.status_code == 200 and session is not None and session_id not in self.loaded:
            replayed = [{"id": m["id"], "type": "replayed"} for m in session.messages]
            self.loaded[session_id] = Loaded(time.monotonic(), replayed)
        return answer


if __name__ == "__main__":
    main(Service, [*sys.argv[1:], "--idle-evict-after", "3"])

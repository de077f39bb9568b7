"""Broken HTTP status service: sessions nothing uses for 2 s are evicted from memory, and a status
probe counts as activity of the caller (a last-seen time kept per user), which keeps every session
of that user in memory: probing one session keeps its siblings alive too. Caught by
http.twins.idle-eviction (rule neighbour), with --http-idle-evict-after 2.
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        answer = await super().session_status(user_id, agent_id, session_id)
        if answer.status_code == 200:
            now = time.monotonic()
            for sid, state in self.loaded.items():
                session = self.sessions.get(sid)
                if session is not None and session.user_id == user_id:
                    state.used_at = now
        return answer


if __name__ == "__main__":
    main(Service, [*sys.argv[1:], "--idle-evict-after", "2"])

"""Broken HTTP status service: sessions nothing uses for 2 s are evicted from memory (their
event_cursor drops), and a status probe counts as use: it resets the session's idle timer, so a
watched session never leaves memory. Caught by http.twins.idle-eviction (rule probed), with
--http-idle-evict-after 2.
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        answer = await super().session_status(user_id, agent_id, session_id)
        state = self.loaded.get(session_id)
        if answer.status_code == 200 and state is not None:
            state.used_at = time.monotonic()
        return answer


if __name__ == "__main__":
    main(Service, [*sys.argv[1:], "--idle-evict-after", "2"])

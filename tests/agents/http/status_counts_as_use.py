"""Broken HTTP status service: at most 4 sessions are kept in memory, the least recently used
evicted (its event_cursor drops), and a status probe counts as use (the session is loaded and made
the most recent, as a cache read through an LRU map does), so another session is evicted in its
place. Caught by http.twins.memory-cap (rule probed), with --http-memory-cap 4.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        answer = await super().session_status(user_id, agent_id, session_id)
        session = self.sessions.get(session_id)
        if answer.status_code == 200 and session is not None:
            self.use(session)
        return answer


if __name__ == "__main__":
    main(Service, ["--memory-cap", "4", *sys.argv[1:]])  # a stated --memory-cap wins

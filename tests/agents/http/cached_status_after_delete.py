"""Broken HTTP status service: status answers from a cache of the caller's last answer, dropped
whenever the session changes (a chat, a run's lease taken or released) but not when the session is
deleted, so a deleted session still reads idle for a while. Caught by http.later.deleted (rule idle).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def __init__(self):
        super().__init__()
        self.cache = {}

    async def session_status(self, user_id, agent_id, session_id):
        key = (user_id, agent_id, session_id)
        if key not in self.cache:
            self.cache[key] = await super().session_status(user_id, agent_id, session_id)
        return self.cache[key]

    def forget(self, session_id):
        for key in [k for k in self.cache if k[2] == session_id]:
            del self.cache[key]

    def touch(self, session):
        self.forget(session.id)
        super().touch(session)

    def acquire_lease(self, session_id, ttl=None):
        self.forget(session_id)
        return super().acquire_lease(session_id, ttl)

    def release_lease(self, session_id, token):
        self.forget(session_id)
        super().release_lease(session_id, token)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: an idle answer is cached for 2 s under the session id alone and
served before the owner is checked, so another user probing right after the owner gets the owner's
200. Caught by http.isolation.after-owner-probe (rule other-user).
"""

import time

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def __init__(self):
        super().__init__()
        self.cache = {}

    async def session_status(self, user_id, agent_id, session_id):
        hit = self.cache.get(session_id)
        if hit is not None and hit[0] > time.monotonic():
            return hit[1]
        answer = await super().session_status(user_id, agent_id, session_id)
        if answer.status_code == 200 and b'"idle"' in answer.body:
            self.cache[session_id] = (time.monotonic() + 2.0, answer)
        return answer

    def touch(self, session):
        self.cache.pop(session.id, None)
        super().touch(session)

    def acquire_lease(self, session_id, ttl=None):
        self.cache.pop(session_id, None)
        return super().acquire_lease(session_id, ttl)

    async def delete(self, user_id, agent_id, session_id):
        self.cache.pop(session_id, None)
        await super().delete(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)

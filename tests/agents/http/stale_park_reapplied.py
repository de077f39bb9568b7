"""Broken HTTP status service: the parked state is cached per session and written back by a
delayed job 1.5 s after the turn parked; once the user answers and the turn ends, that late write
puts the stale entry back, so an idle session reads awaiting_permission again while its messages
show no call waiting. Caught by http.later.states-hold (rule idle).
"""

import asyncio
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main

DELAY = 1.5


class Service(ReferenceService):
    def __init__(self):
        super().__init__()
        self.parked_cache = {}
        self.jobs = set()

    async def run(self, session, token):
        await super().run(session, token)
        found = super().parked_status(session)
        self.parked_cache.pop(session.id, None)
        if found:
            job = asyncio.get_running_loop().call_later(
                DELAY, self.parked_cache.__setitem__, session.id, found
            )
            self.jobs.add(job)

    def parked_status(self, session):
        return self.parked_cache.get(session.id) or super().parked_status(session)


if __name__ == "__main__":
    main(Service)

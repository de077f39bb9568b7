"""Broken HTTP status service: the parked state comes from a registry entry the run writes when its
turn parks, with a 2 s time to live (a message-bus key left to expire), not from the persisted
tail: two seconds after parking, the session reads idle while its messages still show the tool
call waiting for permission. Caught by http.later.states-hold (rule permission).
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main

TTL = 2.0


class Service(ReferenceService):
    def __init__(self):
        super().__init__()
        self.parked_until = {}

    async def run(self, session, token):
        await super().run(session, token)
        if super().parked_status(session):
            self.parked_until[session.id] = time.monotonic() + TTL

    def parked_status(self, session):
        if self.parked_until.get(session.id, 0.0) < time.monotonic():
            return None
        return super().parked_status(session)


if __name__ == "__main__":
    main(Service)

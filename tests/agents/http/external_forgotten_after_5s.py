"""Broken HTTP status service: a call dispatched to an external executor is tracked by a lease the
executor is expected to renew, with a 5 s time to live, and the status reads that lease instead of
the persisted tail: five seconds after the turn parked, the session reads idle while its messages
still show the call waiting for its result. That is longer than the ci profile's 3 s hold, so
http.later.states-hold, which watches one hold, does not see it; caught by http.twins.sequence
(rule consistent): a sequence that leaves the twins parked (seed 0's does) watches them two holds
in growing waits. (The suite of 748e06d certified it.)
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main

TTL = 5.0


class Service(ReferenceService):
    def __init__(self):
        super().__init__()
        self.dispatched_until = {}

    async def run(self, session, token):
        await super().run(session, token)
        if super().parked_status(session) == "awaiting_external_result":
            self.dispatched_until[session.id] = time.monotonic() + TTL

    def parked_status(self, session):
        found = super().parked_status(session)
        if (
            found == "awaiting_external_result"
            and self.dispatched_until.get(session.id, 0.0) < time.monotonic()
        ):
            return None
        return found


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: a call dispatched to an external executor is tracked by a lease the
executor is expected to renew, with a 2 s time to live, and the status reads that lease instead of
the persisted tail: two seconds after the turn parked, the session reads idle while its messages
still show the call waiting for its result. Caught by http.later.states-hold (rule external).
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    TTL = 2.0  # seconds the executor lease lives unless renewed (nothing renews it here)

    def __init__(self):
        super().__init__()
        self.dispatched_until = {}

    async def run(self, session, token):
        await super().run(session, token)
        if super().parked_status(session) == "awaiting_external_result":
            self.dispatched_until[session.id] = time.monotonic() + self.TTL

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

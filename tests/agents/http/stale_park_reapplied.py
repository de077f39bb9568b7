"""Broken HTTP status service: the parked state is cached per session, and a write-behind job
flushes the entry it read when the user's answer arrived 1.5 s later; by then the answered turn has
ended, so an idle session reads awaiting_permission again while its messages show no call waiting.
Caught by http.later.states-hold (rule idle).
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

    def apply_confirm(self, session, event):
        read = super().parked_status(session)
        super().apply_confirm(session, event)
        if read:
            asyncio.get_running_loop().call_later(DELAY, self.parked_cache.__setitem__, session.id, read)

    def parked_status(self, session):
        return self.parked_cache.get(session.id) or super().parked_status(session)


if __name__ == "__main__":
    main(Service)

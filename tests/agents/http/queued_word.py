"""Broken HTTP status service, as queued_runs (POST /chat/ queues the run, a worker picks it up 3 s
later and only then takes the lease), with a fifth word: a run accepted but not picked up yet
reads "queued". No worker holds the lease then, so the spec's four definitions make it idle; and
"queued" is outside the closed enum. Caught by http.status.known-value.
"""

import asyncio

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from queued_runs import Service as QueuedRuns

from conformance.reference.http.service import main


class Service(QueuedRuns):
    async def worker(self, session):
        self.__dict__.setdefault("queued", set()).add(session.id)
        try:
            await asyncio.sleep(self.QUEUED_FOR)
        finally:
            self.__dict__["queued"].discard(session.id)
        token = self.acquire_lease(session.id)
        while token is None:
            await asyncio.sleep(0.05)
            token = self.acquire_lease(session.id)
        await self.run(session, token)

    def derive_status(self, session):
        if not self.lease_held(session.id) and session.id in self.__dict__.get("queued", ()):
            return "queued"
        return super().derive_status(session)


if __name__ == "__main__":
    main(Service)

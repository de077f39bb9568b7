"""Conforming HTTP status service: an interrupt is a stop flag the worker reads when its current
model call has ended; the run keeps its lease (and reads running) until then, and stops before
the next call. Defeats the assumption that an interrupted run stops at once: the session reads
running while the worker reads the stream, then idle; must pass.
"""

import asyncio
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def __init__(self):
        super().__init__()
        self.stopping = set()

    async def interrupt(self, session):
        task = self.runs.get(session.id)
        if task is not None and not task.done():
            self.stopping.add(session.id)
            return
        await super().interrupt(session)

    async def call_model(self, session):
        answer = await super().call_model(session)
        if session.id in self.stopping:
            self.stopping.discard(session.id)
            raise asyncio.CancelledError  # the run's own cancellation path: reply interrupted, lease released
        return answer


if __name__ == "__main__":
    main(Service)

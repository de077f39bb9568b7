"""Broken HTTP status service: a status probe holds a per-session lock while it reads (a
`SELECT … FOR UPDATE NOWAIT`), and a probe that finds it held gets 503, so probes sent together
fail. Caught by http.concurrency.parallel-probes (rule owner).
"""

import asyncio

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import JSONResponse


class Service(ReferenceService):
    def __init__(self):
        super().__init__()
        self.reading = set()

    async def session_status(self, user_id, agent_id, session_id):
        if session_id in self.reading:
            return JSONResponse({"detail": "could not obtain lock on row"}, status_code=503)
        self.reading.add(session_id)
        try:
            await asyncio.sleep(0.02)  # the read
            return await super().session_status(user_id, agent_id, session_id)
        finally:
            self.reading.discard(session_id)


if __name__ == "__main__":
    main(Service)

"""Conforming HTTP status service: every status probe reads the session from storage with a 0.25 s
round trip (awaited: other requests go on meanwhile, nothing is locked), then answers the spec's
body with two fields the OpenAPI schema does not forbid (SessionStatusResponse sets no
additionalProperties: false), agent_id and is_running (the lease, consistent with the status), and
a Cache-Control: no-store header. Defeats the assumptions that a status answer has exactly the
spec's keys and comes in milliseconds (a probe sent while a run works is answered while it still
works): must pass.
"""

import asyncio
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import JSONResponse

READ_DELAY = 0.25  # seconds of the storage round trip


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        await asyncio.sleep(READ_DELAY)
        return await super().session_status(user_id, agent_id, session_id)

    def status_body(self, session, session_id, status):
        assert session is not None  # every status this service answers has its session
        body = {
            "session_id": session_id,
            "status": status,
            "agent_id": session.agent_id,
            "is_running": status == "running",
        }
        return JSONResponse(body, headers={"Cache-Control": "no-store"})


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: the caller is kept on the service object for the request ("the
current user") across an await, so a probe that arrives meanwhile from another user is checked
against the wrong caller and reads the session (or the owner is refused). Caught by
http.concurrency.parallel-probes (rule others, or owner in another interleaving).
"""

import asyncio

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    current: tuple = ()

    async def session_status(self, user_id, agent_id, session_id):
        self.current = (user_id, agent_id)
        await asyncio.sleep(0.005)  # loading the session
        user_id, agent_id = self.current
        return await super().session_status(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: the status takes the session's run lock (to read a consistent
tail), waiting for a run that holds it to end, and then answers from the tail: idle, seconds late.
Caught by http.state.running-during-run and http.ownership.while-running (a probe sent while the
run worked, answered only after it ended).
"""

import asyncio
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        task = self.runs.get(session_id)
        if task is not None and not task.done():
            await asyncio.gather(asyncio.shield(task), return_exceptions=True)
        return await super().session_status(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)

"""Conforming HTTP status service: DELETE of a session whose run is going is answered at once
(the framework's default 204) and carried out by the worker when the run ends, since the worker
owns the session while it holds the lease. Until then the session exists: its messages answer 200
and its status reads running (the lease decides first). Once the run has ended it is gone for
good. Idle sessions are deleted at once.

http.later.deleted waits for the run to end before it judges a DELETE whose session still
answers: not testable here (the run's lease is gone by the time the deleted session is asked).
"""

import asyncio
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def delete(self, user_id, agent_id, session_id):
        session = self.owned(user_id, agent_id, session_id)
        task = self.runs.get(session.id)
        if task is None or task.done():
            return await super().delete(user_id, agent_id, session_id)

        async def after_run():
            await asyncio.gather(task, return_exceptions=True)
            self.sessions.pop(session.id, None)
            self.evict(session.id)

        pending = self.__dict__.setdefault("_deletions", set())
        deletion = asyncio.get_running_loop().create_task(after_run())
        pending.add(deletion)
        deletion.add_done_callback(pending.discard)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: DELETE removes the session's messages first and the session record
after an await on the store (two statements, no transaction), and the status reads a session whose
messages are gone: a probe that arrives in between fails with 500. Caught by
http.concurrency.races (rule delete).
"""

import asyncio
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def delete(self, user_id, agent_id, session_id):
        session = self.owned(user_id, agent_id, session_id)
        await self.interrupt(session)
        session.messages = None  # pyright: ignore[reportAttributeAccessIssue]  # half-deleted on purpose: what a status read meanwhile sees
        await asyncio.sleep(0.05)  # the second statement's round trip
        self.sessions.pop(session.id, None)
        self.evict(session.id)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: a chat rewrites the session's record in two steps across an await on
the store (its messages cleared, then written back with the new one, as a delete-then-insert save
does), and the status reads whatever is there: a probe that arrives in between fails with 500.
Caught by http.concurrency.races (rule chat; or answer, since the answer to a permission request is
a chat too and its probes may be the first to land inside the rewrite).
"""

import asyncio
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def chat(self, user_id, request):
        session = self.owned(user_id, request.agent_id, request.session_id)
        kept, session.messages = session.messages, None  # pyright: ignore[reportAttributeAccessIssue]  # half-deleted on purpose: what a status read meanwhile sees
        await asyncio.sleep(0.05)  # the store's round trip between the delete and the insert
        session.messages = kept
        return await super().chat(user_id, request)


if __name__ == "__main__":
    main(Service)

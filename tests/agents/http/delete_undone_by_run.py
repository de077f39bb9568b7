"""Broken HTTP status service: to answer quickly (closing a model stream can take seconds), DELETE
cancels the session's run without waiting for it, forgets the session and answers 204. The run's
cleanup then writes the session's record back (an upsert by id) a moment later: a session deleted
while a run held its lease reads 200 idle for good after the 204, is listed and takes chats. A
session deleted while idle or parked (no run) is deleted. Breaks "404 if the session does not
exist": the DELETE was answered 204, "the action has been enacted" (RFC 9110). Caught by
http.later.deleted (rule running). The suite of c9de112 said not testable, since the session's
messages still answered 200 (blind round 21's http_delete_zombie).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def delete(self, user_id, agent_id, session_id):
        session = self.owned(user_id, agent_id, session_id)
        task = self.runs.get(session.id)
        if task is not None and not task.done():
            task.cancel()  # not awaited: the 204 goes at once
        elif self.pending_calls(session):
            self.finish_reply(session, "interrupted")
        self.sessions.pop(session.id, None)
        self.evict(session.id)

    def touch(self, session):
        super().touch(session)
        self.sessions[session.id] = session  # the record written back by id


if __name__ == "__main__":
    main(Service)

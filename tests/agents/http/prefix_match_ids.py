"""Broken HTTP status service: the status route resolves a unique prefix of a session id (like a
short commit id; the other routes compare exactly), so half the id reads the session's status while
its messages are 404. Caught by http.identity.session-id-variants.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        matches = [k for k in self.sessions if k.startswith(session_id)]
        return await super().session_status(
            user_id, agent_id, matches[0] if len(matches) == 1 else session_id
        )


if __name__ == "__main__":
    main(Service)

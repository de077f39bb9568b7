"""Broken HTTP status service: an empty x-user-id is taken for "no identity configured" (a
development default) and skips the owner check, so it reads anyone's session. Caught by
http.types.odd-values (rule user-id).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def identify(self, x_user_id):
        return x_user_id  # "" is accepted

    async def session_status(self, user_id, agent_id, session_id):
        session = self.find(session_id)
        if user_id == "" and session is not None:
            user_id = session.user_id
        return await super().session_status(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)

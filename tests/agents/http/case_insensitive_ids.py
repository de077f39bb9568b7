"""Broken HTTP status service: the status route looks the session id up case-insensitively (the
other routes compare exactly), so the upper-cased id reads the session's status while its messages
are 404. Caught by http.identity.session-id-variants.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        folded = {k.casefold(): k for k in self.sessions}
        return await super().session_status(user_id, agent_id, folded.get(session_id.casefold(), session_id))


if __name__ == "__main__":
    main(Service)

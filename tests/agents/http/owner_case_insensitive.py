"""Broken HTTP status service: the status route compares the owner case-insensitively (the other
routes compare exactly), so "ALICE" reads alice's session status while its messages and the listing
refuse "ALICE". Caught by http.identity.user-id-variants: status's ownership is not the service's.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        session = self.find(session_id)
        if session is not None and session.user_id.casefold() == user_id.casefold():
            user_id = session.user_id
        return await super().session_status(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)

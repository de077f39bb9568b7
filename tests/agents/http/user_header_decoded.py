"""Broken HTTP status service: the status route percent-decodes the x-user-id header (as a proxy
that forwards identities URL-encoded would need), so a caller whose id is the owner's with a
character written as %HH reads the owner's session; the other routes take the header as it is.
Caught by http.boundary.encodings (rule double-decoding).
"""

import pathlib
import sys
from urllib.parse import unquote

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        return await super().session_status(unquote(user_id), agent_id, session_id)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: session ids are looked up in a VARCHAR(255) column, so a longer id
makes the lookup raise: HTTP 500 instead of 404. Caught by http.types.odd-values (rule session-id).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        if len(session_id) > 255:
            raise ValueError("value too long for type character varying(255)")
        return await super().session_status(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: the status route checks that session_id parses as a UUID (the
service's own ids are UUIDs) and answers any other id 422 HTTPValidationError, while its OpenAPI
document, like the spec's, types session_id as a plain string: `does-not-exist`, `sess_42`, a
prefix of a real id, a long id name no session and get 422, not 404. An unknown UUID is 404.

Modelled on blind round 8's `http_uuid_path_422`, which the old suite (commit 95aca65) certified:
it took 422 as an answer for any unknown id.

Caught by http.identity.session-id-variants and http.types.odd-values (rule session-id).
"""

import pathlib
import sys
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import JSONResponse


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        try:
            uuid.UUID(session_id)
        except ValueError:
            error = {
                "type": "uuid_parsing",
                "loc": ["path", "session_id"],
                "msg": "Input should be a valid UUID",
                "input": session_id,
            }
            return JSONResponse({"detail": [error]}, status_code=422)
        return await super().session_status(user_id, agent_id, session_id)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: the status body of a session that never ran carries
`"idle_for": NaN` (a float sentinel written by `json.dumps`, which writes NaN by default). Python's
`json.loads` reads it; it is not JSON, and `JSON.parse`, serde, Go's encoding/json and Jackson
refuse the whole answer, so a client cannot read the status of a fresh session. Blind 12,
certified before: the suite parsed bodies with Python's lenient parser.

Sentence: RFC 8259 section 6, "Numeric values that cannot be represented in the grammar below
(such as Infinity and NaN) are not permitted", under the route's `application/json`
SessionStatusResponse. Caught by http.status.shape and every case that reads a fresh session's
status.
"""

import json
import math
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from fastapi.responses import Response

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def status_body(self, session, session_id, status):
        ran = session is not None and self.last_reply(session) is not None
        idle_for = 0.0 if status == "running" or ran else math.nan  # NaN: never ran
        body = {"session_id": session_id, "status": status, "idle_for": idle_for}
        return Response(json.dumps(body), media_type="application/json")


if __name__ == "__main__":
    main(Service)

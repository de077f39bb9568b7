"""Broken HTTP status service: the status carries a strong ETag made from the session's record
(its id and creation time), as a service does that versions the row, not the answer; the status is
derived from the lease and the messages, which that record does not follow. If-None-Match with it
is 304 after the session parked for permission, so a revalidating client keeps reading idle.
Caught by http.protocol.conditional (rule etag).
The suite at 856482f certified it (exit 0): it never revalidated a status.
"""

import hashlib
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main, matches
from fastapi.responses import Response


class Service(ReferenceService):
    def revalidated(self, request, response):
        if response.status_code != 200:
            return response
        session = self.find(json.loads(bytes(response.body))["session_id"])
        assert session is not None  # a 200 status: the session is there
        etag = '"' + hashlib.sha256(f"{session.id}/{session.created_at}".encode()).hexdigest()[:32] + '"'
        if matches(request.headers.get("if-none-match"), etag):
            return Response(status_code=304, headers={"etag": etag})
        response.headers["etag"] = etag
        return response


if __name__ == "__main__":
    main(Service)

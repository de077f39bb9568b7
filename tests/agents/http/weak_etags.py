"""Conforming HTTP status service: the status carries a weak ETag (W/"…", a hash of the status
it reports, as a framework's ETag middleware makes one) and a Last-Modified date, and answers
If-None-Match with it 304 while the status is the same. A weak validator that changes with the
status revalidates nothing stale. Defeats the assumptions that an ETag is strong and that a
service sending validators is never asked with them: must pass.
"""

import hashlib
import json
import pathlib
import sys
from datetime import UTC, datetime
from email.utils import format_datetime

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main, matches
from fastapi.responses import Response


class Service(ReferenceService):
    def __init__(self):
        super().__init__()
        self.since = {}  # session id -> (status, when it was first reported)

    def revalidated(self, request, response):
        if response.status_code != 200:
            return response
        body = json.loads(bytes(response.body))
        status, when = self.since.get(body["session_id"], (None, None))
        if status != body["status"]:
            when = datetime.now(UTC).replace(microsecond=0)
            self.since[body["session_id"]] = (body["status"], when)
        etag = 'W/"' + hashlib.sha256(body["status"].encode()).hexdigest()[:16] + '"'
        headers = {"etag": etag, "last-modified": format_datetime(when, usegmt=True)}
        if matches(request.headers.get("if-none-match"), etag):
            return Response(status_code=304, headers=headers)
        response.headers.update(headers)
        return response


if __name__ == "__main__":
    main(Service)

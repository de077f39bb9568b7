"""Broken HTTP status service: the status carries a Last-Modified date, the session's creation
time (the only date its record keeps), and no ETag; If-Modified-Since with it is 304 whatever
happened since, so after the session parked for permission a revalidating client keeps reading
idle. Caught by http.protocol.conditional (rule last-modified).
The suite at 856482f certified it (exit 0): it never revalidated a status.
"""

import json
import pathlib
import sys
from datetime import datetime
from email.utils import format_datetime, parsedate_to_datetime

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import Response


class Service(ReferenceService):
    def revalidated(self, request, response):
        if response.status_code != 200:
            return response
        session = self.find(json.loads(bytes(response.body))["session_id"])
        assert session is not None  # a 200 status: the session is there
        created = datetime.fromisoformat(session.created_at).replace(microsecond=0)
        stamp = format_datetime(created, usegmt=True)
        since = request.headers.get("if-modified-since")
        try:
            unchanged = since is not None and created <= parsedate_to_datetime(since)
        except (TypeError, ValueError):
            unchanged = False
        if unchanged:
            return Response(status_code=304, headers={"last-modified": stamp})
        response.headers["last-modified"] = stamp
        return response


if __name__ == "__main__":
    main(Service)

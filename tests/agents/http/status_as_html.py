"""Broken HTTP status service: the status answer is the right JSON text served as text/html,
not the spec's application/json (a client that goes by the media type cannot read it). Caught
by http.status.shape.
"""

import json

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import Response


class Service(ReferenceService):
    def status_body(self, session, session_id, status):
        return Response(json.dumps({"session_id": session_id, "status": status}), media_type="text/html")


if __name__ == "__main__":
    main(Service)

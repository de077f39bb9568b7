"""Conforming HTTP status service: every 404 carries a fresh request id, so no two 404 bodies are
equal. Defeats the assumption that the unknown-session 404 is the same body every time
(http.ownership.same-body, the ownership cases in every state): must pass.
"""

import uuid

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import JSONResponse


class Service(ReferenceService):
    def not_found(self, session_id):
        body = {"detail": f"Session '{session_id}' not found.", "request_id": uuid.uuid4().hex}
        return JSONResponse(body, status_code=404)


if __name__ == "__main__":
    main(Service)

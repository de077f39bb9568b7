"""Broken HTTP status service: every 404 carries a fresh request id (so no field of the
unknown-session 404 is the same twice), and the 404 for a session that exists but is not the
caller's (another user, a wrong agent_id) adds why: the body tells existence apart by a field the
unknown-session answer never has. Caught by http.ownership.same-body, the other-user rule of
http.isolation.after-owner-probe and the while-* ownership cases.
"""

import uuid

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import JSONResponse


class Service(ReferenceService):
    def status_refusal(self, session_id, verdict, session, *, user_id, agent_id):
        body = {"request_id": uuid.uuid4().hex}
        if verdict != "unknown":
            body["reason"] = "session exists but is not yours"
        return JSONResponse(body, status_code=404)


if __name__ == "__main__":
    main(Service)

"""Conforming HTTP status service: session and agent ids are 32 lowercase hex digits, and the
status route answers a malformed one 422 (an HTTPValidationError, as FastAPI's `pattern=` does),
and its OpenAPI document declares that pattern for both, as `pattern=` would. Defeats the
assumption that any string is a well-formed unknown id (http.unknown.not-found, the ownership
cases, and the identity cases' session ids, where 422 stands because the service publishes the
pattern): must pass.
"""

import re
from typing import Any

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import conformance.reference.http.service as reference
from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import JSONResponse

HEX = re.compile(r"[0-9a-f]{32}")


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        for where, value in (("path", "session_id"), ("query", "agent_id")):
            given = session_id if value == "session_id" else agent_id
            if not HEX.fullmatch(given):
                error = {
                    "type": "string_pattern_mismatch",
                    "loc": [where, value],
                    "msg": "String should match pattern '^[0-9a-f]{32}$'",
                    "input": given,
                }
                return JSONResponse({"detail": [error]}, status_code=422)
        return await super().session_status(user_id, agent_id, session_id)


build = reference.create_app


def create_app(service=None):
    """The reference's app, its document declaring the ids' pattern."""
    app = build(service)
    publish = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = publish()  # FastAPI keeps it in app.openapi_schema
            for parameter in document["paths"]["/sessions/{session_id}/status"]["get"]["parameters"]:
                if parameter["name"] in ("session_id", "agent_id"):
                    parameter["schema"]["pattern"] = "^[0-9a-f]{32}$"
            return document
        return app.openapi_schema

    app.openapi = openapi
    return app


reference.create_app = create_app

if __name__ == "__main__":
    main(Service)

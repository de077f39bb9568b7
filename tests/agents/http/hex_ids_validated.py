"""Conforming HTTP status service: session and agent ids are 32 lowercase hex digits, and the
status route answers a malformed one 422 (an HTTPValidationError, as FastAPI's `pattern=` does),
and its OpenAPI document declares that pattern for both, as `pattern=` would. Defeats the
assumption that any string is a well-formed unknown id (http.unknown.not-found, the ownership
cases, and the identity cases' session ids, where 422 stands because the service publishes the
pattern): must pass.
"""

import re

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from _published import declare_ids
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


declare_ids({"pattern": "^[0-9a-f]{32}$"}, every_route=False)

if __name__ == "__main__":
    main(Service)

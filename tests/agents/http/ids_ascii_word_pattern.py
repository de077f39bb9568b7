"""Conforming HTTP status service: its OpenAPI document declares the pattern `^[\\w-]+$` for
session and agent ids, and it validates them as JSON Schema reads a pattern (ECMA-262, where `\\w`
is `[A-Za-z0-9_]`, as Go's and JavaScript's validators do): an id with a fullwidth or accented
letter breaks its published contract and gets 422. Defeats a suite that reads a published pattern
with Python's Unicode `\\w`, and so calls the 422 unjustified: must pass.
"""

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from _published import declare_ids
from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import JSONResponse

PATTERN = r"^[\w-]+$"
ECMA = re.compile(PATTERN, re.ASCII)


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        for where, name, given in (("path", "session_id", session_id), ("query", "agent_id", agent_id)):
            # `$` of ECMA-262 never matches before a final newline, as Python's does
            if ECMA.match(given) is None or given.endswith("\n"):
                error = {"loc": [where, name], "msg": f"does not match {PATTERN!r}", "type": "pattern"}
                return JSONResponse({"detail": [error]}, status_code=422)
        return await super().session_status(user_id, agent_id, session_id)


declare_ids({"pattern": PATTERN}, every_route=False)

if __name__ == "__main__":
    main(Service)

"""Conforming HTTP status service: session and agent ids are UUID version 4 (the reference makes
them with uuid4().hex), and every route that takes one answers a malformed one 422 (an
HTTPValidationError, as FastAPI does for a `pydantic.UUID4` parameter): the version digit must be
4 and the variant digit one of 8, 9, a, b. Its OpenAPI document declares `format: uuid4` for
them, as FastAPI does for such a parameter. Defeats the assumption that an id whose every
character is drawn from its class (hex stays hex) is a well-formed unknown id
(http.unknown.not-found, http.ownership.same-body, the ownership and isolation cases, and the
identity cases' session ids, where 422 stands because the service publishes the format): must
pass.
"""

import uuid

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from _published import declare_ids
from conformance.reference.http.service import ReferenceService, main
from fastapi import HTTPException
from fastapi.responses import JSONResponse


def malformed(value):
    try:
        parsed = uuid.UUID(value)
    except (ValueError, TypeError, AttributeError):
        return True
    return parsed.version != 4 or parsed.variant != uuid.RFC_4122


def errors(session_id, agent_id):
    return [
        {"type": "uuid_version", "loc": [where, name], "msg": "UUID version 4 expected", "input": value}
        for where, name, value in (("path", "session_id", session_id), ("query", "agent_id", agent_id))
        if malformed(value)
    ]


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        found = errors(session_id, agent_id)
        if found:
            return JSONResponse({"detail": found}, status_code=422)
        return await super().session_status(user_id, agent_id, session_id)

    def owned(self, user_id, agent_id, session_id):  # messages, delete, interrupt, chat
        found = errors(session_id, agent_id)
        if found:
            raise HTTPException(422, found)
        return super().owned(user_id, agent_id, session_id)


declare_ids({"format": "uuid4"}, every_route=True)

if __name__ == "__main__":
    main(Service)

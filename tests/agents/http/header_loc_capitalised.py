"""Conforming HTTP status service: the 422 for a missing x-user-id names the header in its
canonical capitalisation, ["header", "X-User-Id"] (header names are case-insensitive, RFC 9110
5.1, and the spec's ValidationError.loc is any list of strings and integers). Defeats the
assumption that detail[].loc spells the header as the request did
(http.validation.missing-user-id): must pass.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import JSONResponse


class Service(ReferenceService):
    async def validation_error(self, request, exc):
        errors = []
        for error in exc.errors():
            loc = (
                ["header", "X-User-Id"]
                if list(error.get("loc", ())) == ["header", "x-user-id"]
                else error["loc"]
            )
            errors.append({"loc": list(loc), "msg": error.get("msg", ""), "type": error.get("type", "")})
        return JSONResponse({"detail": errors}, status_code=422)


if __name__ == "__main__":
    main(Service)

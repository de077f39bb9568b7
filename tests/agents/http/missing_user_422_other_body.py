"""Conforming HTTP status service: a missing x-user-id gets 422 with {"error": "x-user-id
required"}: the spec's HTTPValidationError is an object whose `detail` is optional, so this body
has its shape (FastAPI always sends `detail`; the spec does not require it). Defeats the
assumption that a 422 must carry a non-empty `detail` naming the field
(http.validation.missing-user-id): must pass.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import JSONResponse


class Service(ReferenceService):
    async def validation_error(self, request, exc):
        if any(tuple(e.get("loc", ())) == ("header", "x-user-id") for e in exc.errors()):
            return JSONResponse({"error": "x-user-id required"}, status_code=422)
        return await super().validation_error(request, exc)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: a missing x-user-id gets 422 {"detail": "x-user-id header is
required"} (what FastAPI's HTTPException(422, text) sends): its detail is a string, not the
HTTPValidationError's list of ValidationError. Caught by http.validation.missing-user-id.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import JSONResponse


class Service(ReferenceService):
    async def validation_error(self, request, exc):
        if any(tuple(e.get("loc", ())) == ("header", "x-user-id") for e in exc.errors()):
            return JSONResponse({"detail": "x-user-id header is required"}, status_code=422)
        return await super().validation_error(request, exc)


if __name__ == "__main__":
    main(Service)

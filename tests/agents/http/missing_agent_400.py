"""Broken HTTP status service: a missing agent_id gets 400 {"error": ...} instead of the 422
HTTPValidationError. Caught by http.validation.missing-agent-id.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import JSONResponse


class Service(ReferenceService):
    async def validation_error(self, request, exc):
        if any(tuple(e.get("loc", ())) == ("query", "agent_id") for e in exc.errors()):
            return JSONResponse({"error": "agent_id is required"}, status_code=400)
        return await super().validation_error(request, exc)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: every 422 is FastAPI's HTTPValidationError body served as
text/plain, not the spec's application/json. Caught by http.validation.missing-agent-id and
http.validation.missing-user-id.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from fastapi.responses import Response


class Service(ReferenceService):
    async def validation_error(self, request, exc):
        answer = await super().validation_error(request, exc)
        return Response(answer.body, status_code=answer.status_code, media_type="text/plain")


if __name__ == "__main__":
    main(Service)

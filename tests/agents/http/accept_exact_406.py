"""Broken HTTP status service: the status route compares the whole Accept header with "*/*" and
"application/json" and answers 406 to anything else (absent Accept is served), so axios's default
"application/json, text/plain, */*" and "application/json; charset=utf-8" never get a status.
Caught by http.protocol.accept.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from fastapi.responses import JSONResponse

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def revalidated(self, request, response):
        accept = request.headers.get("accept")
        if accept is not None and accept.strip() not in ("*/*", "application/json"):
            return JSONResponse({"detail": "Not Acceptable"}, status_code=406)
        return super().revalidated(request, response)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: an exception handler writes every HTTP error as the service's own
JSON body (a detail and the code) and drops the headers the router put on the exception, so HEAD
and OPTIONS of the status route (and any other method it does not serve) are 405 without an Allow
header. RFC 9110 15.5.6: a 405 MUST carry Allow. Caught by http.protocol.header-fields#allow.
"""

from _routes import run
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException


def extend(app, service):
    async def as_json(request, exc):
        return JSONResponse({"detail": exc.detail, "status": exc.status_code}, status_code=exc.status_code)

    app.add_exception_handler(HTTPException, as_json)


if __name__ == "__main__":
    run(extend)

"""Broken HTTP status service: a method guard in front of the routes refuses every method the
read-only routes do not serve with one 405 whose Allow list was copied from the chat routes
(POST), so HEAD and OPTIONS of the status route are told that only POST is served there, where the
route serves GET. RFC 9110 15.5.6: Allow lists the target resource's supported methods. Caught by
http.protocol.header-fields#allow.
"""

from _routes import run
from fastapi.responses import JSONResponse

READ_ONLY = ("/status", "/messages")


def extend(app, service):
    @app.middleware("http")
    async def method_guard(request, call_next):
        if request.method != "GET" and request.url.path.rstrip("/").endswith(READ_ONLY):
            return JSONResponse({"detail": "Method Not Allowed"}, status_code=405, headers={"Allow": "POST"})
        return await call_next(request)


if __name__ == "__main__":
    run(extend)

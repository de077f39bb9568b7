"""Broken HTTP status service: a revalidation middleware keeps the last ETag it sent for each URL
and answers If-None-Match naming it 304 before the route runs, whoever asks. A cache in front
that revalidates the owner's copy with another user's request is told to serve it: another user
learns the session exists and, through the cache, reads its status. Caught by
http.protocol.owner-everywhere#conditional.
"""

from _routes import run
from fastapi.responses import Response

from conformance.reference.http.service import matches


def extend(app, service):
    sent = {}  # URL path -> the ETag last sent for it

    @app.middleware("http")
    async def not_modified_first(request, call_next):
        etag = sent.get(request.url.path)
        if request.method == "GET" and etag and matches(request.headers.get("if-none-match"), etag):
            return Response(status_code=304, headers={"etag": etag})
        response = await call_next(request)
        if response.headers.get("etag"):
            sent[request.url.path] = response.headers["etag"]
        return response


if __name__ == "__main__":
    run(extend)

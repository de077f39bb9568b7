"""Conforming HTTP status service: OPTIONS of the status route is 204 with Allow: GET, HEAD,
OPTIONS; HEAD is served (the GET's code and headers, no content) with the owner check; every 200
status carries an ETag, Cache-Control: private, no-cache, Vary: X-User-Id and a Content-Location,
and a matching If-None-Match is a 304 with all four. Defeats the assumptions that HEAD and OPTIONS
are refused and that a 304 carries only an ETag: must pass.
"""

import hashlib
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from _routes import run
from fastapi import Depends, Header
from fastapi.responses import Response

from conformance.reference.http.service import ReferenceService, matches


class Service(ReferenceService):
    def revalidated(self, request, response):
        if response.status_code != 200:
            return response
        fields = {
            "etag": '"' + hashlib.sha256(bytes(response.body)).hexdigest()[:32] + '"',
            "cache-control": "private, no-cache",
            "vary": "X-User-Id",
            "content-location": request.url.path,
        }
        if matches(request.headers.get("if-none-match"), fields["etag"]):
            return Response(status_code=304, headers=fields)
        response.headers.update(fields)
        return response


def extend(app, service):
    def caller(x_user_id: str = Header()) -> str:
        return service.identify(x_user_id)

    async def head_status(session_id: str, agent_id: str, user_id: str = Depends(caller)) -> Response:
        answer = await service.session_status(user_id, agent_id, session_id)
        headers = {k: v for k, v in answer.headers.items() if k.lower() != "content-length"}
        return Response(status_code=answer.status_code, headers=headers)

    async def options_status(session_id: str) -> Response:
        return Response(status_code=204, headers={"Allow": "GET, HEAD, OPTIONS"})

    app.add_api_route("/sessions/{session_id}/status", head_status, methods=["HEAD"], include_in_schema=False)
    app.add_api_route(
        "/sessions/{session_id}/status", options_status, methods=["OPTIONS"], include_in_schema=False
    )


if __name__ == "__main__":
    run(extend, Service())

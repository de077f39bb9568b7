"""Broken HTTP status service: a second status route, the path with a trailing slash (added for
clients that append one, instead of a redirect), looks the session up by id alone and skips the
owner and agent checks. Another user and a wrong agent_id read the session's status there.
Caught by http.protocol.owner-everywhere (rule trailing-slash).
The suite at 856482f certified it (exit 0): it never asked the path with a trailing slash.
"""

from _routes import run
from fastapi import Request
from fastapi.responses import Response


def extend(app, service):
    async def slash_status(session_id: str, request: Request) -> Response:
        session = service.find(session_id)
        if session is None:
            return service.not_found(session_id)
        return service.status_body(session, session_id, service.derive_status(session))

    app.add_api_route(
        "/sessions/{session_id}/status/", slash_status, methods=["GET", "HEAD"], include_in_schema=False
    )


if __name__ == "__main__":
    run(extend)

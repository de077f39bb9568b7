"""Broken HTTP status service: the path with a trailing slash is answered 307 to an internal
alias of the status route (/internal/sessions/{id}/status, behind the gateway's auth in the
deployment it was written for) that does not check the owner or the agent. Following the redirect,
as clients do, another user reads the session's status. Caught by http.protocol.owner-everywhere
(rule trailing-slash).
The suite at 856482f certified it (exit 0): it never asked the path with a trailing slash.
"""

from _routes import run
from fastapi import Request
from fastapi.responses import RedirectResponse, Response


def extend(app, service):
    async def slash_status(session_id: str, request: Request) -> Response:
        return RedirectResponse(f"/internal/sessions/{session_id}/status", status_code=307)

    async def internal_status(session_id: str) -> Response:
        session = service.find(session_id)
        if session is None:
            return service.not_found(session_id)
        return service.status_body(session, session_id, service.derive_status(session))

    app.add_api_route(
        "/sessions/{session_id}/status/", slash_status, methods=["GET", "HEAD"], include_in_schema=False
    )
    app.add_api_route(
        "/internal/sessions/{session_id}/status", internal_status, methods=["GET"], include_in_schema=False
    )


if __name__ == "__main__":
    run(extend)

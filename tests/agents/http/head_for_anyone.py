"""Broken HTTP status service: HEAD of the status route is a liveness shortcut that asks only
whether the session exists (200, else 404), whoever asks and with whatever agent_id, while GET
checks the owner. HEAD is GET without content (RFC 9110 9.3.2), so its 200 tells another user
the session exists. Caught by http.protocol.owner-everywhere (rule head).
The suite at 856482f certified it (exit 0): it never sent HEAD.
"""

from _routes import run
from fastapi import Request
from fastapi.responses import Response


def extend(app, service):
    async def head_status(session_id: str, request: Request) -> Response:
        return Response(status_code=200 if service.find(session_id) is not None else 404)

    app.add_api_route("/sessions/{session_id}/status", head_status, methods=["HEAD"], include_in_schema=False)


if __name__ == "__main__":
    run(extend)

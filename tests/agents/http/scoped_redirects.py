"""Conforming HTTP status service: the path with a trailing slash is answered 307 to the status
route itself (its query kept), so the owner check there decides, and HEAD of the status route is
served (the GET's code and headers, no content: RFC 9110 9.3.2), 200 to the owner and the
unknown-session 404 to anyone else. Defeats the assumptions that a redirect is a way around the
owner check and that a service answering HEAD answers it for anyone: must pass.
"""

from _routes import run
from fastapi import Depends, Header, Request
from fastapi.responses import RedirectResponse, Response


def extend(app, service):
    def caller(x_user_id: str = Header()) -> str:
        return service.identify(x_user_id)

    async def slash_status(session_id: str, request: Request) -> Response:
        query = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(
            f"/sessions/{request.path_params['session_id']}/status{query}", status_code=307
        )

    async def head_status(session_id: str, agent_id: str, user_id: str = Depends(caller)) -> Response:
        answer = await service.session_status(user_id, agent_id, session_id)
        headers = {k: v for k, v in answer.headers.items() if k.lower() != "content-length"}
        return Response(status_code=answer.status_code, headers=headers)

    app.add_api_route(
        "/sessions/{session_id}/status/", slash_status, methods=["GET", "HEAD"], include_in_schema=False
    )
    app.add_api_route("/sessions/{session_id}/status", head_status, methods=["HEAD"], include_in_schema=False)


if __name__ == "__main__":
    run(extend)

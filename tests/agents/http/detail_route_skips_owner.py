"""Broken HTTP status service: a second route that shows a session's status, GET
/sessions/{session_id} (the session's record with its status and is_running, in the OpenAPI
document), checks the caller's agent_id but not that the session is the caller's: another user
reads the status there. Caught by http.protocol.owner-everywhere (rule route).
The suite at 856482f certified it (exit 0): it never asked another route of the OpenAPI document as another user.
"""

from _routes import run
from fastapi import HTTPException, Query


def extend(app, service):
    async def get_session(session_id: str, agent_id: str = Query()) -> dict:
        session = service.find(session_id)
        if session is None or session.agent_id != agent_id:
            raise HTTPException(404, f"Session '{session_id}' not found.")
        return service.session_view(session)

    app.add_api_route("/sessions/{session_id}", get_session, methods=["GET"], tags=["sessions"])


if __name__ == "__main__":
    run(extend)

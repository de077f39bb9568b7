"""Broken HTTP status service: the team dashboard, a browser app behind the company's SSO gateway,
polls every session of the team, so the service allows CORS and takes a status request that
carries Origin for the dashboard's ("the gateway vouched for the browser"): it checks that the
session exists and belongs to the agent, not that it belongs to x-user-id. Every browser fetch
sends Origin, so anyone whose client does reads any session's status; without Origin the owner is
checked. Caught by http.protocol.owner-everywhere (rule headers).
"""

import contextvars

from _routes import run
from fastapi.middleware.cors import CORSMiddleware

from conformance.reference.http.service import ReferenceService

from_browser = contextvars.ContextVar("from_browser", default=False)


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        if from_browser.get():
            session, verdict = self.lookup(user_id, agent_id, session_id)
            if session is not None and verdict == "other_user":
                return self.status_body(session, session_id, self.derive_status(session))
        return await super().session_status(user_id, agent_id, session_id)


def extend(app, service):
    @app.middleware("http")
    async def mark_browser(request, call_next):
        token = from_browser.set("origin" in request.headers)
        try:
            return await call_next(request)
        finally:
            from_browser.reset(token)

    app.add_middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["*"], allow_headers=["*"])


if __name__ == "__main__":
    run(extend, Service())

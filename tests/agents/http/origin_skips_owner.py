"""Broken HTTP status service: the team dashboard, a browser app behind the company's SSO gateway,
polls every session of the team, so the service allows CORS and takes a status request that
carries Origin for the dashboard's ("the gateway vouched for the browser"): it checks that the
session exists and belongs to the agent, not that it belongs to x-user-id. Every browser fetch
sends Origin, so anyone whose client does reads any session's status; without Origin the owner is
checked. Caught by http.protocol.owner-everywhere (rule headers).
"""

from _routes import run, trusting
from fastapi.middleware.cors import CORSMiddleware


def extend(app, service):
    mark(app, service)
    app.add_middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["*"], allow_headers=["*"])


mark, service = trusting(lambda headers: "origin" in headers)

if __name__ == "__main__":
    run(extend, service)

"""Conforming HTTP status service: a browser dashboard on another origin is allowed by CORS
(preflights answered, Access-Control-Allow-Origin and -Credentials on the answers, Vary: Origin),
and the owner is checked on every request as without it. Defeats the assumption that a service
whose answers change with Origin lets the request's origin decide who reads a session
(http.protocol.owner-everywhere, rule headers): must pass, under --strict too.
"""

from _routes import run
from fastapi.middleware.cors import CORSMiddleware


def extend(app, service):
    app.add_middleware(
        CORSMiddleware,
        allow_origins=["https://dashboard.example"],
        allow_credentials=True,
        allow_methods=["*"],
        allow_headers=["*"],
    )


if __name__ == "__main__":
    run(extend)

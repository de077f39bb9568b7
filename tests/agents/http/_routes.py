"""For the variants that add a route or a method to the reference's app."""

import asyncio
import contextvars
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, create_app, serve

__all__ = ["answer", "answered", "run", "trusting"]


def run(extend, service=None):
    """Serve the reference (or ``service``) with ``extend(app, service)`` applied to its app, on
    the --listen address of the command line."""
    host, _, port = sys.argv[sys.argv.index("--listen") + 1].rpartition(":")
    service = service or ReferenceService()
    service.configure()
    app = create_app(service)
    extend(app, service)
    asyncio.run(serve(app, host, int(port)))


async def answered(application, scope, receive):
    """What ``application`` answers to ``scope``: its status, its headers and its whole body, kept
    instead of sent (a front that looks at an answer before the client gets it)."""
    start, body = {}, []

    async def keep(message):
        if message["type"] == "http.response.start":
            start.update(message)
        else:
            body.append(message.get("body", b""))

    await application(scope, receive, keep)
    return start["status"], start["headers"], b"".join(body)


async def answer(send, status, headers, body):
    """Send one whole answer."""
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def trusting(trusted):
    """Serve the reference with one bug: a status request ``trusted(headers)`` says yes to skips
    the owner check (the session must exist and belong to the agent, not to x-user-id)."""
    marked = contextvars.ContextVar("trusted", default=False)

    class Service(ReferenceService):
        async def session_status(self, user_id, agent_id, session_id):
            if marked.get():
                session, verdict = self.lookup(user_id, agent_id, session_id)
                if session is not None and verdict == "other_user":
                    return self.status_body(session, session_id, self.derive_status(session))
            return await super().session_status(user_id, agent_id, session_id)

    def extend(app, service):
        @app.middleware("http")
        async def mark(request, call_next):
            token = marked.set(trusted(request.headers))
            try:
                return await call_next(request)
            finally:
                marked.reset(token)

    return extend, Service()

"""Broken HTTP status service: a status request a proxy forwarded for an address on the private
network (X-Forwarded-For or X-Real-IP in 10.0.0.0/8) is taken for an internal monitor's and skips
the owner check, so anyone behind the company's proxy reads any session's status; a request with
no such header is checked. Caught by http.protocol.owner-everywhere (rule headers).
"""

import contextvars
import ipaddress

from _routes import run

from conformance.reference.http.service import ReferenceService

INTERNAL = ipaddress.ip_network("10.0.0.0/8")
internal = contextvars.ContextVar("internal", default=False)


def forwarded_for(headers):
    first = (headers.get("x-real-ip") or headers.get("x-forwarded-for") or "").split(",")[0].strip()
    try:
        return ipaddress.ip_address(first) in INTERNAL
    except ValueError:
        return False


class Service(ReferenceService):
    async def session_status(self, user_id, agent_id, session_id):
        if internal.get():
            session, verdict = self.lookup(user_id, agent_id, session_id)
            if session is not None and verdict == "other_user":
                return self.status_body(session, session_id, self.derive_status(session))
        return await super().session_status(user_id, agent_id, session_id)


def extend(app, service):
    @app.middleware("http")
    async def mark_internal(request, call_next):
        token = internal.set(forwarded_for(request.headers))
        try:
            return await call_next(request)
        finally:
            internal.reset(token)


if __name__ == "__main__":
    run(extend, Service())

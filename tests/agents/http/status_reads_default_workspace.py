"""Broken HTTP status service: the run lease is keyed by the session's workspace and id
(``<workspace>/<session id>``), and the status looks the lease up under the default workspace, so a
session created with another ``workspace_id`` (an optional parameter of ``POST /sessions/``) never
reads running while its run works; its messages say ``is_running: true`` at the same moment.
Sessions of the default workspace are right. Breaks "RUNNING is decided first from the
distributed session-run lock"; caught by http.state.running-during-run (and, with --http-long-run,
http.state.running-outlives-lease), which create their session with the optional parameters the
service's OpenAPI document names; http.ownership.while-running gets no running session either.
(Blind round 6's http_workspace_lease; the suite of 748e06d certified it.)
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.models import Lease, new_id
from conformance.reference.http.service import ReferenceService, SessionStatus, main


def run_key(session_id, workspace_id="default"):
    return f"{workspace_id}/{session_id}"


class Service(ReferenceService):
    def workspace_of(self, session_id):
        session = self.sessions.get(session_id)
        return session.workspace_id if session is not None else "default"

    def lease_held(self, session_id, workspace_id=None):
        key = run_key(session_id, workspace_id or self.workspace_of(session_id))
        lease = self.leases.get(key)
        return lease is not None and lease.expires_at > time.monotonic()

    def acquire_lease(self, session_id, ttl=None):
        if self.lease_held(session_id):
            return None
        token = new_id()
        self.leases[run_key(session_id, self.workspace_of(session_id))] = Lease(
            token, time.monotonic() + (ttl or self.lease_ttl)
        )
        return token

    def renew_lease(self, session_id, token):
        lease = self.leases.get(run_key(session_id, self.workspace_of(session_id)))
        if lease is not None and lease.token == token:
            lease.expires_at = time.monotonic() + self.lease_ttl

    def release_lease(self, session_id, token):
        key = run_key(session_id, self.workspace_of(session_id))
        lease = self.leases.get(key)
        if lease is not None and lease.token == token:
            del self.leases[key]

    def derive_status(self, session):
        if self.lease_held(session.id, "default"):  # the session's own workspace is not passed
            return SessionStatus.RUNNING.value
        return self.parked_status(session) or SessionStatus.IDLE.value


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: runs let their lease expire (1 s, renewed while they work) instead of
releasing it, and a status probe that finds the lease held renews it, so a session probed every
50 ms reads running forever after its run ended. Caught by http.state.idle-after-run.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    lease_ttl = 1.0

    def release_lease(self, session_id, token):
        pass  # left to expire

    def derive_status(self, session):
        lease = self.leases.get(session.id)
        if lease is not None and self.lease_held(session.id):
            self.renew_lease(session.id, lease.token)  # "still watched: keep it"
        return super().derive_status(session)


if __name__ == "__main__":
    main(Service)

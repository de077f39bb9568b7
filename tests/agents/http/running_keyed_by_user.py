"""Broken HTTP status service: the status asks whether the caller has a run going (the lock keyed
by the user, as a per-user concurrency limit keys it), not whether this session's run holds its
lease, so every session of a user reads running while any one of them runs. Caught by
http.neighbour.siblings (rule running).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, SessionStatus, main


class Service(ReferenceService):
    def derive_status(self, session):
        mine = [s for s in self.sessions.values() if s.user_id == session.user_id]
        if any(self.lease_held(s.id) for s in mine):
            return SessionStatus.RUNNING.value
        return self.parked_status(session) or SessionStatus.IDLE.value


if __name__ == "__main__":
    main(Service)

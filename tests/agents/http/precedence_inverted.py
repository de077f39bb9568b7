"""Broken HTTP status service: the persisted tail is asked first and decides; the lease only counts for
a session with no context yet, so a running session with a clean tail reads idle. Caught by
http.state.running-during-run.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def derive_status(self, session):
        parked = self.parked_status(session)
        if parked is not None or session.messages:
            return parked or "idle"
        return "running" if self.lease_held(session.id) else "idle"


if __name__ == "__main__":
    main(Service)

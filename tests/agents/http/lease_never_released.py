"""Broken HTTP status service: a run's lease is not released when the run ends (it expires 120 s
later), so running is still reported after the run. Caught by http.state.idle-after-run.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    lease_ttl = 120.0

    def release_lease(self, session_id, token):
        pass  # forgotten: the lease only expires


if __name__ == "__main__":
    main(Service)

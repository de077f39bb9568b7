"""Broken HTTP status service: a run takes its lease (5 s to live) but never renews it, so a run
that works longer than that reads idle while it still works. Caught by
http.state.running-outlives-lease (given --http-long-run 7); every shorter run reads right.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    lease_ttl = 5.0

    def renew_lease(self, session_id, token):
        pass  # forgotten: the lease expires mid-run


if __name__ == "__main__":
    main(Service)

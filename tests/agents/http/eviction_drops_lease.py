"""Broken HTTP status service: at most 4 sessions are kept in memory, evicted purely by recency (a
session with a run going too), and the run lease is part of the session's in-memory state, so
evicting a running session drops its lease: its worker goes on (its renewals find no lease) while
the session reads idle. Breaks "RUNNING: a worker somewhere in the cluster currently holds the
session's run lease". Caught by http.state.running-outlives-lease with --http-memory-cap 4 (other
sessions used while the run works); a run during which fewer than 4 other sessions are used reads
right.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def evict_over_cap(self):
        if self.memory_cap is None:
            return
        while len(self.loaded) > self.memory_cap:
            self.evict(next(iter(self.loaded)))

    def evict(self, session_id):
        super().evict(session_id)
        self.leases.pop(session_id, None)


if __name__ == "__main__":
    main(Service, [*sys.argv[1:], "--memory-cap", "4"])

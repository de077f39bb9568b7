"""Conforming HTTP status service, as queued_runs (POST /chat/ queues the run, a worker takes the
lease only when it picks the run up), with the worker picking runs up 4 s later: longer than the
--timeout the tests give it (2 s). Until then the session truly is idle. The spec says nothing of
how soon a run starts, so the cases that need a working run are not testable, never failed
(http.state.running-during-run, http.state.idle-after-run, http.ownership.while-running).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from queued_runs import Service as QueuedRuns

from conformance.reference.http.service import main


class Service(QueuedRuns):
    QUEUED_FOR = 4.0


if __name__ == "__main__":
    main(Service)

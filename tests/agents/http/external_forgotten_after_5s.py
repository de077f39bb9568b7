"""Broken HTTP status service, as external_forgotten_after_2s (the dispatched call tracked by an
executor lease nothing renews, read instead of the persisted tail) with a 5 s time to live: five
seconds after the turn parked, the session reads idle while its messages still show the call
waiting for its result. That is longer than the ci profile's 3 s hold, so http.later.states-hold,
which watches one hold, does not see it; caught by http.twins.sequence (rule consistent): a
sequence that leaves the twins parked (seed 0's does) watches them two holds in growing waits.
(The suite of 748e06d certified it.)
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from external_forgotten_after_2s import Service as ForgottenAfter2s

from conformance.reference.http.service import main


class Service(ForgottenAfter2s):
    TTL = 5.0


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: the parked state is read from the session's loaded state (the agent
in memory knows which call it waits on), and sessions nothing uses for 2 s are evicted from memory,
so a parked session reads idle two seconds after it parked while its messages still show the call
waiting. Caught by http.later.states-hold (rule permission) and, with --http-idle-evict-after 2, by
http.twins.idle-eviction (rule consistent).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def parked_status(self, session):
        if session.id not in self.loaded:
            return None
        return super().parked_status(session)


if __name__ == "__main__":
    main(Service, [*sys.argv[1:], "--idle-evict-after", "2"])

"""Conforming HTTP status service: sessions live in a least-recently-used map of 4 (an in-memory
store with a cap); using a session (creating it, a chat, an answer) makes it the most recent, and
the least recent is dropped for good: every route answers 404 for it from then on. The status reads
without counting as use. Defeats the assumption that sessions outlive memory pressure: with
--http-memory-cap 4, http.twins.memory-cap must pass.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def evict(self, session_id):
        super().evict(session_id)
        self.sessions.pop(session_id, None)


if __name__ == "__main__":
    main(Service, [*sys.argv[1:], "--memory-cap", "4"])

"""Conforming HTTP status service: a session nothing uses for 2 s expires for good (a store with a
sliding time to live on use): every route answers 404 for it from then on. The status reads without
refreshing the time to live. Defeats the assumption that sessions outlive a wait: with
--http-idle-evict-after 2, http.twins.idle-eviction must pass.
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
    main(Service, [*sys.argv[1:], "--idle-evict-after", "2"])

"""Broken HTTP status service: a session that never ran reads awaiting_external_result (its empty
context is taken for one parked on an external executor). Caught by http.state.idle-fresh.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def parked_status(self, session):
        if not session.messages:
            return "awaiting_external_result"
        return super().parked_status(session)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: reports `waiting` instead of awaiting_permission. Caught by
http.status.known-value and http.state.awaiting-permission.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def parked_status(self, session):
        status = super().parked_status(session)
        return "waiting" if status == "awaiting_permission" else status


if __name__ == "__main__":
    main(Service)

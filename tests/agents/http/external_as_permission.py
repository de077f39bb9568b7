"""Broken HTTP status service: a tool call waiting on the external executor reads awaiting_permission.
Caught by http.state.awaiting-external.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def parked_status(self, session):
        status = super().parked_status(session)
        return "awaiting_permission" if status == "awaiting_external_result" else status


if __name__ == "__main__":
    main(Service)

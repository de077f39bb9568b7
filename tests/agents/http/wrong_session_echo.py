"""Broken HTTP status service: the body's session_id is not the path's id (it is upper-cased). Caught
by http.status.shape.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def status_body(self, session, session_id, status):
        return super().status_body(session, session_id.upper(), status)


if __name__ == "__main__":
    main(Service)

"""Broken HTTP status service: a session that once parked on a permission request keeps a "parked"
flag that nothing clears, so it reads awaiting_permission after the user answered and the resumed
run ended. Caught by http.later.permission-answered (rule allowed).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def parked_status(self, session):
        status = super().parked_status(session)
        if status == "awaiting_permission":
            session.__dict__["parked"] = True  # set on the way in, never reset
        return "awaiting_permission" if getattr(session, "parked", False) else status


if __name__ == "__main__":
    main(Service)

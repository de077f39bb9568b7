"""Broken HTTP status service: a session that once waited for an external executor keeps that flag
after the result was submitted and the resumed run ended. Caught by http.later.external-answered.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def parked_status(self, session):
        status = super().parked_status(session)
        if status == "awaiting_external_result":
            session.__dict__["external"] = True  # set on the way in, never reset
        return "awaiting_external_result" if getattr(session, "external", False) else status


if __name__ == "__main__":
    main(Service)

"""Conforming HTTP status service: its listing entries and message pages carry the time they were
read (`fetched_at`, to the microsecond), so two reads never match byte for byte. Defeats the
assumption that a view read twice is the same (http.safe.no-side-effects,
http.safe.parked-stays-parked): must pass.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main, now_iso


class Service(ReferenceService):
    def session_view(self, session):
        return {**super().session_view(session), "fetched_at": now_iso()}

    def messages_page(self, session, before, offset, limit):
        return {**super().messages_page(session, before, offset, limit), "fetched_at": now_iso()}


if __name__ == "__main__":
    main(Service)

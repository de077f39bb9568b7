"""Conforming HTTP status service: its toolkit asks no permission (the model's Write runs at once),
so no turn ever parks on a permission request. Defeats the assumption that the model's call parks
the turn (http.state.awaiting-permission and every case that needs a session waiting for
permission): those are not testable, never failed.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def needs_permission(self, tool):
        return False


if __name__ == "__main__":
    main(Service)

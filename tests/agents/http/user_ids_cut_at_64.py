"""Broken HTTP status service: owners are kept in a VARCHAR(64) column that silently cuts longer
values (MySQL without strict mode), on write and on lookup alike, so two users whose ids share the
first 64 characters are one owner: either reads the other's sessions. Caught by
http.boundary.id-lengths (rule user-id).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def identify(self, x_user_id):
        return super().identify(x_user_id)[:64]


if __name__ == "__main__":
    main(Service)

"""Conforming HTTP status service: user ids compare case-insensitively on every route (x-user-id is
folded to lower case on the way in), so "ALICE" is alice everywhere. Defeats the assumption that
another case is another user (http.identity.user-id-variants): must pass.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def identify(self, x_user_id):
        return super().identify(x_user_id).lower()


if __name__ == "__main__":
    main(Service)

"""Conforming HTTP status service: user ids compare case-insensitively on every route (x-user-id
is folded to lower case on the way in, as for e-mail addresses), so "ALICE" is alice everywhere:
the status, the messages and the listing alike. The spec fixes no comparison rule for its
"temporary header-based identity", so this is the deployment's identity policy, and status agrees
with the service's other routes on it. Defeats the assumption that an id in another letter case is
another user (http.identity.user-id-variants): must pass, under --strict too (info: the service
folds user ids).
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

"""Broken HTTP status service: user ids compare case-insensitively on every route (x-user-id is
folded to lower case on the way in, as for e-mail addresses), so "ALICE" reads alice's sessions,
the status and the messages alike. Caught by http.identity.user-id-variants: the id is a plain
string the spec gives no folding, and the JWT subject replacing it compares case-sensitively.
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

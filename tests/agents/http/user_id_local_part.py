"""Broken HTTP status service: behind an SSO proxy that sends either the user's e-mail or their
username, every route cuts the x-user-id at its "@" (alice@corp.example is alice), so
alice@partner.example reads and drives alice@corp.example's sessions, and the owner's id with any
domain after it reads the owner's. Consistent on every route, so no comparison of routes shows it.
Caught by http.ownership.other-user-404 (the owner's id at another domain is another user).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def identify(self, x_user_id):
        user = super().identify(x_user_id)
        return user.split("@", 1)[0] or user


if __name__ == "__main__":
    main(Service)

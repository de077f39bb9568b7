"""Conforming HTTP status service: every route refuses an x-user-id that is not a plain account
name (letters, digits, ".", "_", "-") with 400, as a deployment whose ids are usernames does, so an
e-mail-form id or one with a +tag is refused before any session is looked up. Defeats the
assumption that another user whose id is a spelling of the owner's gets 404
(http.ownership.other-user-404): a refusal of the id itself shows nothing of the session. Must
pass, under --strict too.
"""

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from fastapi import HTTPException

from conformance.reference.http.service import ReferenceService, main

ACCOUNT = re.compile(r"[A-Za-z0-9._-]+")


class Service(ReferenceService):
    def identify(self, x_user_id):
        user = super().identify(x_user_id)
        if not ACCOUNT.fullmatch(user):
            raise HTTPException(400, "x-user-id is not an account name.")
        return user


if __name__ == "__main__":
    main(Service)

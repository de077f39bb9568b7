"""Conforming HTTP status service: every route normalises the caller's id to NFC (canonically
equivalent ids are one user everywhere: the status, the messages, the listing). Defeats the
assumption that a user id in NFD is another user (http.boundary.encodings, rule normalisation):
must pass.
"""

import pathlib
import sys
import unicodedata

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def identify(self, x_user_id):
        text = super().identify(x_user_id).encode("latin-1").decode("utf-8", "replace")
        return unicodedata.normalize("NFC", text).encode("utf-8").decode("latin-1")


if __name__ == "__main__":
    main(Service)
